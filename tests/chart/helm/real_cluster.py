"""What the scripts that install the chart into a real kube-apiserver share: the processes they
start (stopped on every way out), failing, the Go tools they build, free ports, polling, and the
control plane with the chart's ServiceAccount as an identity.

Call init() first; `children` is the list a script appends the processes it starts to.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

children = []
_source = ""
_work = ""
_show_work_on_failure = False


def init(source, work_prefix, show_work_on_failure=False):
    """Sets the source tree and makes the work folder, whose path it returns."""
    global _source, _work, _show_work_on_failure
    _source, _show_work_on_failure = source, show_work_on_failure
    _work = tempfile.mkdtemp(prefix=work_prefix)
    return _work


def stop_children():
    for p in reversed(children):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def fail(msg):
    print("FAIL:", msg)
    stop_children()
    if _show_work_on_failure:
        print(f"(logs in {_work})")
    sys.exit(1)


def go_tool(folder, package, name):
    r = subprocess.run([os.path.join(_source, "scripts/build-go-tool"), folder, package, name],
                       capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        fail(f"cannot build {name}")
    return r.stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    fail(f"{what} within {seconds} s")


def start_control_plane(namespace, service_account):
    """The real etcd and kube-apiserver ($DHA_KUBE_CONTROL_PLANE, or built from the tree; a tree
    without it exits 77, a skip), with `operator` as namespace's service_account. Returns the
    launcher's ready document and the path of its log."""
    control_plane = os.environ.get("DHA_KUBE_CONTROL_PLANE", "")
    if not control_plane:
        if not os.path.isfile(os.path.join(_source, "sdk/testing/controlplane/go.mod")):
            print("SKIP: this tree has no real control plane (sdk/testing/controlplane); set DHA_KUBE_CONTROL_PLANE")
            sys.exit(77)
        control_plane = go_tool("sdk/testing/controlplane", ".", "dha-kube-control-plane")
    ready_file = os.path.join(_work, "ready.json")
    log_path = os.path.join(_work, "control-plane.log")
    with open(log_path, "w") as log:
        children.append(subprocess.Popen(
            [control_plane, "--ready-file", ready_file, "--data-dir", os.path.join(_work, "kube"),
             f"--service-account=operator={namespace}:{service_account}"], stdout=log, stderr=subprocess.STDOUT))
    launcher = children[-1]
    wait_for("the control plane is ready", lambda: os.path.exists(ready_file) or launcher.poll() is not None, 180)
    if launcher.poll() is not None:
        fail("the control plane exited:\n" + open(log_path).read()[-3000:])
    with open(ready_file) as f:
        return json.load(f), log_path
