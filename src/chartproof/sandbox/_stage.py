"""Root-only launcher step of chartproof's sandbox: make the read-only sources reachable for an
unprivileged user, drop to that user, then start bubblewrap.

When chartproof runs as root, bubblewrap run as root would map the sandbox's user onto host
root: the guest, though without capabilities, would own every root-owned file it can see
(`/proc/sys` included) and process-count limits would not bind. So the sandbox is started as
uid/gid 65534 instead. The interpreter may live where that user cannot look (`/root` is
mode 700), so this step, run by `unshare --mount --propagation private`, bind-mounts each
source read-only under a fresh mode-755 tmpfs, in a mount namespace of its own (the host's
mounts are never touched), mounts the sandbox's writable tmpfs with its size and inode caps
(bwrap's own `--tmpfs` takes no inode cap), then drops every privilege and execs `bwrap`.

Started only by `chartproof.sandbox.runner`; standard library only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def main() -> None:
    spec = json.loads(sys.argv[1])
    stage, mount = spec["stage"], spec["mount"]

    def run(*args: str) -> None:
        subprocess.run([mount, *args], check=True, stdin=subprocess.DEVNULL)

    run("-t", "tmpfs", "-o", "mode=0755,size=1m,nosuid,nodev", "chartproof-stage", stage)
    for i, source in enumerate(spec["sources"]):
        target = os.path.join(stage, str(i))
        if os.path.isdir(source):
            os.mkdir(target)
        else:
            open(target, "wb").close()
        run("--bind", source, target)
        run("-o", "remount,bind,ro,nosuid,nodev", target)
    uid, gid = spec["uid"], spec["gid"]
    box = spec.get("box")
    if box is not None:  # the sandbox's writable tmpfs, size and inodes capped
        options = f"mode=0755,uid={uid},gid={gid},size={box['size']},nr_inodes={box['inodes']}"
        run("-t", "tmpfs", "-o", options + ",nosuid,nodev", "chartproof-box", box["path"])
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("chartproof sandbox: could not drop to an unprivileged user")
    os.execv(spec["argv"][0], spec["argv"])


if __name__ == "__main__":
    main()
