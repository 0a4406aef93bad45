"""A recording validating webhook on 127.0.0.1 over HTTPS: keeps every AdmissionReview it gets
and allows everything except UPDATEs by the tenant identity."""

import http.server
import json
import os
import ssl
import subprocess
import threading


def make_certificate(workdir):
    """A self-signed certificate for IP 127.0.0.1 (it is its own CA)."""
    key, cert = os.path.join(workdir, "webhook.key"), os.path.join(workdir, "webhook.crt")
    if not os.path.exists(cert):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
    return key, cert


class RecordingWebhook:
    def __init__(self, workdir, deny_user):
        key, cert = make_certificate(workdir)
        self.ca_pem = open(cert, "rb").read()
        self.reviews = []
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.reviews.append(review)
                request = review["request"]
                allowed = not (request["operation"] == "UPDATE" and request["userInfo"]["username"] == deny_user)
                answer = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                          "response": {"uid": request["uid"], "allowed": allowed}}
                if not allowed:
                    answer["response"]["status"] = {"code": 403, "message": "tenants may not change this"}
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
