"""The one registry mechanism: decorator registration, lazy import of built-in modules on
first use, entry-point plug-ins, did-you-mean on unknown names."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chartproof.types.names import UnknownNameError
from chartproof.types.registry import Registry


def test_decorator_registers_and_returns_the_item() -> None:
    reg: Registry[object] = Registry("widget")

    @reg.register("round")
    def round_widget() -> str:
        return "o"

    assert reg["round"] is round_widget
    assert "round" in reg and "square" not in reg
    assert reg.names() == ["round"]
    assert reg.register("square", len) is len
    assert reg.items() == [("round", round_widget), ("square", len)]


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ("rond", "unknown widget 'rond' (did you mean 'round'?); choose one of: round, square"),
        ("zzz", "unknown widget 'zzz'; choose one of: round, square"),
    ],
)
def test_unknown_name_suggests_the_nearest(asked: str, message: str) -> None:
    reg: Registry[int] = Registry("widget")
    reg.register("round", 1)
    reg.register("square", 2)
    with pytest.raises(UnknownNameError) as caught:
        reg[asked]
    assert str(caught.value) == message
    assert reg.get(asked) is None


def test_a_taken_name_is_refused_unless_replaced() -> None:
    reg: Registry[int] = Registry("widget")
    reg.register("a", 1)
    with pytest.raises(ValueError, match="a widget called 'a' is already registered"):
        reg.register("a", 2)
    reg.register("a", 3, replace=True)
    assert reg["a"] == 3
    reg.unregister("a")
    assert "a" not in reg


def test_built_in_modules_are_imported_on_first_use_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reg_home.py").write_text(
        "from reg_owner import REG\nREG.register('late', 42)\n", encoding="utf-8"
    )
    (tmp_path / "reg_owner.py").write_text(
        "from chartproof.types.registry import Registry\n"
        "REG = Registry('widget', modules=('reg_home',))\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import reg_owner  # type: ignore[import-not-found]

    try:
        assert "reg_home" not in sys.modules
        assert reg_owner.REG["late"] == 42
        assert "reg_home" in sys.modules
    finally:
        sys.modules.pop("reg_owner", None)
        sys.modules.pop("reg_home", None)


def test_entry_point_modules_register_their_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    reg: Registry[int] = Registry("widget", group="chartproof.test_widgets")
    (tmp_path / "widget_plugin.py").write_text(
        "import chartproof_test_reg as r\nr.REG.register('plugged', 7)\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = type(sys)("chartproof_test_reg")
    module.REG = reg  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "chartproof_test_reg", module)
    entry = metadata.EntryPoint("plugged", "widget_plugin", "chartproof.test_widgets")
    monkeypatch.setattr(
        metadata,
        "entry_points",
        lambda group: [entry] if group == "chartproof.test_widgets" else [],
    )
    try:
        assert reg["plugged"] == 7
    finally:
        sys.modules.pop("widget_plugin", None)


def test_pop_and_items_registered_so_far_without_loading() -> None:
    reg: Registry[int] = Registry("widget", modules=("chartproof_no_such_module",))
    reg.register("a", 1)
    # `registered` reads what is there; the built-in modules are imported on lookups only
    assert reg.registered() == [("a", 1)]
    assert reg.pop("a") == 1 and reg.pop("a") is None
    assert reg.registered() == []


def test_a_home_is_imported_when_its_name_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reg_named_home.py").write_text(
        "import reg_named_owner as o\no.REG.register('late', 5)\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry[int] = Registry("widget")
    module = type(sys)("reg_named_owner")
    module.REG = reg  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "reg_named_owner", module)
    reg.load()  # loaded before the home was recorded
    reg.add_home("late", "reg_named_home")
    try:
        assert reg.home_of("late") == "reg_named_home" and reg.has_home("late")
        assert "reg_named_home" not in sys.modules
        assert reg["late"] == 5
        assert reg.known() == ["late"]
    finally:
        sys.modules.pop("reg_named_home", None)


def test_an_item_registered_at_run_time_has_no_home() -> None:
    def item() -> None: ...

    shipped: Registry[object] = Registry("widget", modules=(__name__,))
    shipped.register("a", item)
    # registered by a built-in module: a fresh process finds it by importing that module
    assert shipped.home_of("a") == __name__
    elsewhere: Registry[object] = Registry("widget", modules=("chartproof.metrics.accuracy",))
    elsewhere.register("a", item)
    # registered by a script or a test: this process only
    assert elsewhere.home_of("a") is None and not elsewhere.has_home("a")
    told: Registry[object] = Registry("widget", modules=(__name__,), origin=lambda _: None)
    told.register("a", item)
    assert told.home_of("a") is None  # `origin` says where an item comes from
