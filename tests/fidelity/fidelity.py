#!/usr/bin/python3
"""The differential fidelity suite: the same scripted API calls against dha-apiserver and the
real kube-apiserver, their normalized answers compared check by check.

    fidelity.py --dha PATH/dha-apiserver [--kube PATH/dha-kube-control-plane] [--baseline FILE]

The real server's binary comes from --kube or $DHA_KUBE_CONTROL_PLANE. Without it the suite
skips (exit 77), or fails when CI=true. With --baseline, a check listed there that no longer
matches fails the run; a check that newly matches is reported so the baseline can be updated
(--write-baseline rewrites it). --dha-only runs the checks against dha-apiserver alone and
prints what it answered, to develop a check without the real server.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import checks_auth  # noqa: E402,F401 - each module registers its checks
import checks_builtins  # noqa: E402,F401
import checks_clients  # noqa: E402,F401
import checks_lists  # noqa: E402,F401
import checks_objects  # noqa: E402,F401
from check import CHECKS  # noqa: E402
from servers import default_identities, start_dha, start_real  # noqa: E402
from target import Target  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP = 77


def crd_files():
    return sorted(glob.glob(os.path.join(REPO, "sdk/testing/crds/*.yaml"))) + \
        sorted(glob.glob(os.path.join(REPO, "charts/db-autoscaler/crds/*.yaml")))


def prepare(t):
    """The CRDs every check may use, applied as a user would, and established."""
    for path in crd_files():
        rc, out, err = t.kubectl("apply", "-f", path)
        if rc != 0:
            raise RuntimeError(f"{t.server.label}: kubectl apply -f {path}: {err.strip()}")
    rc, out, err = t.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
    if rc != 0:
        raise RuntimeError(f"{t.server.label}: CRDs not established: {err.strip()}")
    # The real server's discovery notices new CRDs a moment later; kubectl needs them listed.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if t.http("GET", "/apis/postgresql.cnpg.io/v1").status == 200 and \
                t.http("GET", "/apis/apps.cozystack.io/v1alpha1").status == 200:
            break
        time.sleep(0.5)


def observe(t, ns, fn):
    created = t.http("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    if created.status != 201:
        return {"setup failed": created.status}
    try:
        return fn(t, ns)
    except Exception as e:  # noqa: BLE001 - a check that breaks is a difference, not a crash
        return {"check raised": type(e).__name__, "message": re.sub(r"\d+", "N", str(e))[:300]}


def canonical(value):
    return json.dumps(value, sort_keys=True, default=str)


def read_baseline(path):
    if not path or not os.path.exists(path):
        return set()
    return {line.strip() for line in open(path) if line.strip() and not line.startswith("#")}


def write_baseline(path, matched):
    with open(path, "w") as f:
        f.write("# Checks on which dha-apiserver answers as kube-apiserver does (tests/fidelity/fidelity.py).\n"
                "# A listed check that stops matching fails the suite; rewrite with --write-baseline.\n")
        for name, _ in CHECKS:
            if name in matched:
                f.write(name + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dha", required=True, help="the dha-apiserver binary")
    parser.add_argument("--kube", default=os.environ.get("DHA_KUBE_CONTROL_PLANE", ""),
                        help="the dha-kube-control-plane binary (default: $DHA_KUBE_CONTROL_PLANE)")
    parser.add_argument("--baseline", help="file listing the checks expected to match")
    parser.add_argument("--write-baseline", action="store_true", help="rewrite --baseline with today's matches")
    parser.add_argument("--only", default="", help="run only checks whose name matches this regex")
    parser.add_argument("--dha-only", action="store_true", help="no comparison: print dha-apiserver's answers")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, kubeconfigs)")
    args = parser.parse_args()

    if not args.dha_only and not (args.kube and os.access(args.kube, os.X_OK)):
        why = f"the real kube-apiserver is not available ({args.kube or 'DHA_KUBE_CONTROL_PLANE is not set'})"
        if os.environ.get("CI") == "true":
            print(f"fidelity: FAILED: {why}; CI must run this suite", file=sys.stderr)
            return 1
        print(f"fidelity: SKIPPED: {why}")
        return SKIP

    checks = [(n, f) for n, f in CHECKS if re.search(args.only, n)]
    workdir = tempfile.mkdtemp(prefix="dha-fidelity-")
    servers = []
    try:
        real = None
        if not args.dha_only:
            started = time.monotonic()
            real = start_real(args.kube, workdir)
            servers.append(real)
            print(f"fidelity: kube-apiserver ready in {time.monotonic() - started:.1f} s at {real.url}", flush=True)
        dha = start_dha(args.dha, workdir, real.identities if real else default_identities())
        servers.append(dha)
        targets = [Target(s, workdir) for s in servers]
        for t in targets:
            prepare(t)

        results = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(targets)) as pool:
            for i, (name, fn) in enumerate(checks):
                ns = f"fidelity-{i:03d}"
                seen = list(pool.map(lambda t: observe(t, ns, fn), targets))
                results.append((name, seen))
                if args.dha_only:
                    print(f"{name}\n    {canonical(seen[0])}", flush=True)

        if args.dha_only:
            return 0
        return report(results, args)
    finally:
        for s in reversed(servers):
            s.stop()
        if args.keep:
            print(f"fidelity: work directory kept at {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def report(results, args):
    matched = {name for name, (kube, dha) in results if canonical(kube) == canonical(dha)}
    for name, (kube, dha) in results:
        if name not in matched:
            print(f"DIFFERS  {name}\n    kube-apiserver: {canonical(kube)}\n    dha-apiserver:  {canonical(dha)}")
    print(f"dha-apiserver matches kube-apiserver on {len(matched)} of {len(results)} checks")
    ran = {name for name, _ in results}
    if args.write_baseline and args.baseline:
        # Checks left out by --only keep their entries.
        write_baseline(args.baseline, matched | (read_baseline(args.baseline) - ran))
        print(f"fidelity: baseline written to {args.baseline}")
        return 0
    baseline = read_baseline(args.baseline)
    regressed = sorted(n for n in baseline & ran if n not in matched)
    improved = sorted(n for n in matched if n not in baseline)
    for n in improved:
        print(f"NEWLY MATCHES (update the baseline: --write-baseline): {n}")
    for n in regressed:
        print(f"REGRESSED (matched before, differs now): {n}")
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
