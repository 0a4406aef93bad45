#!/usr/bin/env python3
"""scripts/demo --real-node interrupted as a terminal's Ctrl-C interrupts it: SIGINT to its whole
process group once the node is up and the demo is installing CloudNativePG. The demo must say
so, take the node down, and leave the host as it found it (dha-real-node down compares it with
the snapshot taken before the start and says "the host is as it was"); it exits 130.

usage: demo_interrupt_test.py DEMO BUILD_DIR"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

demo, build_dir = sys.argv[1], sys.argv[2]
if os.geteuid() != 0:
    print("SKIP: scripts/demo --real-node needs root")
    sys.exit(77)


def default_signals():
    # A shell's background job ignores SIGINT; a terminal's foreground job does not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


proc = subprocess.Popen([demo, "--real-node", "--build-dir", build_dir], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, start_new_session=True,
                        preexec_fn=default_signals)
lines = []
interrupted_at = None
deadline = time.time() + 600
for line in proc.stdout:
    lines.append(line)
    sys.stdout.write(line)
    if interrupted_at is None and "==> VictoriaMetrics, Helm, CloudNativePG" in line:
        time.sleep(3)
        interrupted_at = time.time()
        print("--- SIGINT to the demo's process group")
        os.killpg(proc.pid, signal.SIGINT)
    if time.time() > deadline:
        os.killpg(proc.pid, signal.SIGTERM)
        print("FAIL: no end within 600 s")
        sys.exit(1)
status = proc.wait()
output = "".join(lines)
failures = []
if interrupted_at is None:
    failures.append("the demo never reached the CloudNativePG step")
if status != 130:
    failures.append(f"exit status {status}, want 130")
if "demo: interrupted; taking the node down" not in output:
    failures.append("the demo did not say it was interrupted")
if "down: the host is as it was before the node started" not in output:
    failures.append("no check that the host is as it was")
if subprocess.run(["ip", "link", "show", "dha-br0"], capture_output=True).returncode == 0:
    failures.append("the bridge dha-br0 is still there")
# An interrupted demo keeps its logs for the user; this test's are of no use once it passed.
kept = re.search(r"logs kept in (\S+)", output)
if kept and not failures:
    shutil.rmtree(kept.group(1), ignore_errors=True)
if failures:
    print("FAIL: " + "; ".join(failures))
    sys.exit(1)
print(f"--- interrupted: node down and the host as found {time.time() - interrupted_at:.0f} s after the SIGINT")
