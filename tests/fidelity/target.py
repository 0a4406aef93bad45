"""How a check talks to one server: curl for raw HTTP, kubectl, and the official Python client,
each as one of the server's identities."""

import json
import os
import subprocess
import tempfile


class Response:
    def __init__(self, status, headers, text):
        self.status, self.headers, self.text = status, headers, text
        try:
            self.json = json.loads(text) if text.strip() else None
        except ValueError:
            self.json = None

    def lines(self):
        """A watch body as a list of decoded events."""
        out = []
        for line in self.text.splitlines():
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    out.append({"unparsed": line[:200]})
        return out


class Target:
    def __init__(self, server, workdir):
        self.server = server
        self.workdir = workdir
        self.home = tempfile.mkdtemp(prefix="home-", dir=workdir)  # kubectl's discovery cache, per server

    # --- curl --------------------------------------------------------------------------------
    def http(self, method, path, body=None, ctype="application/json", who="admin", accept=None, timeout=15):
        token = self.server.identities[who].token if who else "not-a-valid-token"
        with tempfile.NamedTemporaryFile("w+", suffix=".headers") as headers:
            cmd = ["curl", "-sS", "--max-time", str(timeout), "--cacert", self.server.ca_file, "-X", method,
                   "-H", f"Authorization: Bearer {token}", "-D", headers.name, "-o", "-", "-w", "\n%{http_code}"]
            if accept:
                cmd += ["-H", f"Accept: {accept}"]
            data = None
            if body is not None:
                data = body if isinstance(body, str) else json.dumps(body)
                cmd += ["-H", f"Content-Type: {ctype}", "--data-binary", "@-"]
            cmd.append(self.server.url + path)
            done = subprocess.run(cmd, input=data, capture_output=True, text=True, timeout=timeout + 10)
            text, _, code = done.stdout.rpartition("\n")
            hdrs = {}
            for line in open(headers.name).read().splitlines():
                if ":" in line:
                    k, v = line.split(":", 1)
                    hdrs.setdefault(k.strip().lower(), []).append(v.strip())
        return Response(int(code) if code.isdigit() else 0, hdrs, text)

    # --- kubectl -----------------------------------------------------------------------------
    def kubectl(self, *args, who="admin", stdin=None, timeout=60):
        env = dict(os.environ, HOME=self.home, KUBECONFIG=self.server.identities[who].kubeconfig)
        env.pop("KUBECTL_EXTERNAL_DIFF", None)
        done = subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True, env=env,
                              timeout=timeout)
        return done.returncode, done.stdout, done.stderr

    # --- the Python client -------------------------------------------------------------------
    def python_client(self, who="admin"):
        import kubernetes
        configuration = kubernetes.client.Configuration()
        configuration.host = self.server.url
        configuration.ssl_ca_cert = self.server.ca_file
        configuration.api_key = {"authorization": "Bearer " + self.server.identities[who].token}
        return kubernetes.client.ApiClient(configuration)
