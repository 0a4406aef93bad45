"""Starting the two API servers the fidelity suite compares, with the same identities.

The real kube-apiserver (dha-kube-control-plane) is started first: it makes the tokens. The
embedded dha-apiserver is then given a token file with the very same tokens, usernames and
groups, so every call can be made as "the same user" on both.
"""

import base64
import json
import os
import re
import secrets
import signal
import subprocess
import time

# Who the suite acts as. The operator's ServiceAccount identity is the one the chart binds.
TENANT = ("tenant", "tenant-user")
OPERATOR_SA = ("operator", "cozy-db-autoscaler", "db-autoscaler")


class Identity:
    def __init__(self, name, username, groups, token, kubeconfig=""):
        self.name, self.username, self.groups, self.token, self.kubeconfig = name, username, groups, token, kubeconfig


class Server:
    """One running API server: its URL, CA file and identities by name (admin, tenant, operator)."""

    def __init__(self, label, url, ca_file, identities, process):
        self.label, self.url, self.ca_file, self.identities, self.process = label, url, ca_file, identities, process

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_real(binary, workdir, timeout_s=180):
    """Starts dha-kube-control-plane and waits for its ready file."""
    data = os.path.join(workdir, "kube")
    ready = os.path.join(workdir, "kube-ready.json")
    log = open(os.path.join(workdir, "kube.log"), "w")
    process = subprocess.Popen(
        [binary, "--data-dir", data, "--ready-file", ready,
         "--identity", f"{TENANT[0]}={TENANT[1]}",
         "--service-account", f"{OPERATOR_SA[0]}={OPERATOR_SA[1]}:{OPERATOR_SA[2]}"],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(ready):
        if process.poll() is not None:
            raise RuntimeError(f"{binary} exited with {process.returncode}; see {log.name}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{binary} not ready after {timeout_s} s; see {log.name}")
        time.sleep(0.5)
    info = json.load(open(ready))
    ids = {name: Identity(name, i["username"], i.get("groups") or [], i["token"], i["kubeconfig"])
           for name, i in info["identities"].items()}
    return Server("kube-apiserver", info["url"], info["caFile"], ids, process)


def default_identities():
    """The identities when no real server made them (the same names, fresh tokens)."""
    sa = OPERATOR_SA
    return {
        "admin": Identity("admin", "admin", ["system:masters"], secrets.token_hex(16)),
        TENANT[0]: Identity(TENANT[0], TENANT[1], [], secrets.token_hex(16)),
        sa[0]: Identity(sa[0], f"system:serviceaccount:{sa[1]}:{sa[2]}",
                        ["system:serviceaccounts", f"system:serviceaccounts:{sa[1]}"], secrets.token_hex(16)),
    }


def start_dha(binary, workdir, identities, timeout_s=30):
    """Starts dha-apiserver over TLS with a token file holding `identities`' tokens."""
    tokens = os.path.join(workdir, "dha-tokens.csv")
    with open(tokens, "w") as f:
        # uid-N in name order, as dha-kube-control-plane numbers them.
        for i, ident in enumerate(identities[name] for name in sorted(identities)):
            groups = [g for g in ident.groups if g != "system:authenticated"]
            f.write(f'{ident.token},{ident.username},uid-{i + 1},"{",".join(groups)}"\n')
    admin_kubeconfig = os.path.join(workdir, "dha-kubeconfig-admin")
    log_path = os.path.join(workdir, "dha.log")
    log = open(log_path, "w")
    process = subprocess.Popen(
        [binary, "--tls", "--tokens", tokens, "--kubeconfig-out", admin_kubeconfig,
         "--kubeconfig-token", identities["admin"].token],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    url = None
    while url is None:
        if process.poll() is not None:
            raise RuntimeError(f"{binary} exited with {process.returncode}; see {log_path}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{binary} not listening after {timeout_s} s; see {log_path}")
        m = re.search(r"listening on (\S+)", open(log_path).read())
        url = m.group(1) if m else None
        time.sleep(0.1)
    kubeconfig = open(admin_kubeconfig).read()
    ca = re.search(r"certificate-authority-data:\s*(\S+)", kubeconfig).group(1)
    ca_file = os.path.join(workdir, "dha-ca.pem")
    with open(ca_file, "wb") as f:
        f.write(base64.b64decode(ca))
    ids = {}
    for name, ident in identities.items():
        path = os.path.join(workdir, f"dha-kubeconfig-{name}")
        with open(path, "w") as f:
            f.write(kubeconfig.replace(identities["admin"].token, ident.token))
        ids[name] = Identity(name, ident.username, ident.groups, ident.token, path)
    return Server("dha-apiserver", url, ca_file, ids, process)
