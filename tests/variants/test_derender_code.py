"""Charts from images as code: the pipeline with a scripted model, the sandbox in the loop,
fidelity scores, and the spec it hands to counterfactual families."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.models.parsing import extract_code
from chartproof.pipelines.derender_code import (
    DerenderConfig,
    data_agreement,
    derender,
    guess_chart_type,
)
from chartproof.sandbox import SandboxPolicy, run_code
from chartproof.testing import ScriptedBackend
from chartproof.types import DataTable, ModelRequest

AGREEMENT: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "data_agreement.json").read_text(encoding="utf-8")
)

TABLE = DataTable.from_csv("Fruit,Sales\nApples,12\nPears,31\nPlums,7\nKiwis,19\n")

SCRIPT = """\
import csv
import matplotlib.pyplot as plt

labels = ["Apples", "Pears", "Plums", "Kiwis"]
values = [{values}]
fig, ax = plt.subplots(figsize=(3.2, 2.4), dpi=100)
ax.bar(labels, values, color="#1f77b4")
ax.set_title("Fruit sales")
fig.savefig("chart.png")
with open("data.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["Fruit", "Sales"])
    w.writerows(zip(labels, values))
"""

FAST = SandboxPolicy(timeout_s=60, cpu_s=60)


@pytest.mark.parametrize("case", AGREEMENT, ids=[c["name"] for c in AGREEMENT])
def test_data_agreement_cases(case: dict[str, Any]) -> None:
    got = data_agreement(DataTable.from_csv(case["original"]), DataTable.from_csv(case["redrawn"]))
    assert got == pytest.approx(case["expected"])


def test_extract_code_and_guess_type() -> None:
    reply = "Sure!\n```python\nimport matplotlib.pyplot as plt\nplt.barh([1],[2])\n```\nDone."
    code = extract_code(reply)
    assert code == "import matplotlib.pyplot as plt\nplt.barh([1],[2])"
    assert guess_chart_type(code) == "hbar"
    assert extract_code("import matplotlib.pyplot as plt\nplt.pie([1, 2])") is not None
    assert extract_code("I cannot draw that.") is None
    assert guess_chart_type("ax.plot(x, y)\nax.scatter(x, y)") == "scatter"
    assert guess_chart_type("print(1)") is None


@pytest.fixture(scope="module")
def original_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = run_code(SCRIPT.format(values="12, 31, 7, 19"), FAST)
    assert run.ok, run.stderr
    path = tmp_path_factory.mktemp("orig") / "chart.png"
    path.write_bytes(run.files["chart.png"])
    return path


def _model(reply: str) -> ScriptedBackend:
    return ScriptedBackend(lambda request: reply, name="scripted:coder")


def test_faithful_redraw_becomes_a_spec(original_png: Path) -> None:
    backend = _model("```python\n" + SCRIPT.format(values="12, 31, 7, 19") + "```")
    cfg = DerenderConfig(policy=FAST)
    result = derender(original_png, backend, sample_id="fruit", table=TABLE, config=cfg)
    assert result.status == "ok", result.reason
    assert result.ssim == pytest.approx(1.0)
    assert result.data_agreement == 1.0 and result.faithful
    request: ModelRequest = backend.requests[0]
    assert request.prompt == "derender_code@1"
    assert "figsize=(3.20, 2.40)" in request.messages[0].content[1].text  # type: ignore[union-attr]
    assert "320x240 pixels" in request.messages[0].content[1].text  # type: ignore[union-attr]
    spec = result.spec
    assert spec is not None and spec.chart_type == "vbar"
    assert spec.table.values("Sales") == (12.0, 31.0, 7.0, 19.0)
    assert spec.parent_id == "fruit" and spec.transforms[0].name == "derender_code"

    from chartproof.variants.counterfactual import build_family

    family = build_family(spec, seeds=range(3), reconstruction=False)
    assert [m.role for m in family.members] == ["original"] + ["counterfactual"] * 3


def test_wrong_data_is_not_faithful(original_png: Path) -> None:
    backend = _model("```python\n" + SCRIPT.format(values="12, 31, 17, 9") + "```")
    result = derender(
        original_png, backend, sample_id="fruit", table=TABLE, config=DerenderConfig(policy=FAST)
    )
    assert result.status == "ok"
    assert result.data_agreement == 0.5
    assert not result.faithful and result.spec is None


@pytest.mark.parametrize(
    ("reply", "status", "reason"),
    [
        ("```python\nimport os\nos.system('rm -rf /')\n```", "sandbox_failed", "forbidden"),
        # the escape the hardening issue reproduced: patch the guard's path check, then read
        (
            "```python\nimport warnings\nm = warnings.sys.modules['__main__']\n"
            "m._path_of = lambda a: None\nprint(open('/etc/shadow').read())\n```",
            "sandbox_failed",
            "read outside allowed roots",
        ),
        ("```python\nwhile True:\n    pass\n```", "sandbox_failed", "timeout"),
        ("```python\nprint('no figure')\n```", "no_image", "chart.png"),
        ("I would rather not.", "no_code", "no Python code"),
    ],
)
def test_bad_replies_are_reported(original_png: Path, reply: str, status: str, reason: str) -> None:
    policy = SandboxPolicy(preload=(), timeout_s=5, cpu_s=1)
    result = derender(
        original_png, _model(reply), sample_id="x", config=DerenderConfig(policy=policy)
    )
    assert result.status == status
    assert result.reason is not None and reason in result.reason
    assert not result.faithful


def test_model_errors_are_reported(original_png: Path) -> None:
    def broken(request: ModelRequest) -> str:
        raise TimeoutError("upstream timed out")

    result = derender(original_png, ScriptedBackend(broken), sample_id="x")
    assert result.status == "model_error" and "upstream timed out" in (result.reason or "")
