#pragma once
// An embedded Kubernetes API server for tests: real HTTP(S) on loopback, real Kubernetes
// semantics (resourceVersion, 409, generation, finalizers, subresources, patches, watch,
// CRD schema validation, admission webhooks), so kubectl and our kube client can drive it.
// See sdk/testing/README.md for what is faithful and what is not.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dha::testing {

struct Identity {
  std::string username;
  std::vector<std::string> groups;
  std::string uid;
};

// A request RBAC would refuse: `verb` ("get", "list", "watch", "create", "update", "patch",
// "delete", "deletecollection") on `resource` (its plural, "events") of API group `group` ("" for
// the core group), by the user `username`.
struct DeniedRequest {
  std::string username;
  std::string verb;
  std::string resource;
  std::string group;
};

struct ApiServerOptions {
  std::string listen = "127.0.0.1:0";      // port 0 = pick a free port
  bool tls = false;                        // self-signed CA generated at start (OpenSSL)
  std::map<std::string, Identity> tokens;  // bearer token -> identity; empty = anonymous admin
  std::vector<std::string> crd_dirs;       // YAML/JSON CRD files (or directories of them) to register

  // SubjectAccessReview answers "allowed" for users in group system:masters and for these users.
  std::set<std::string> sar_allowed_users;
  // Admission webhooks configured with clientConfig.service are dialled on 127.0.0.1:<port>
  // found here under "namespace/name" (TLS is still verified against "<name>.<namespace>.svc").
  std::map<std::string, uint16_t> webhook_services;
  // How many watch events are kept; a watch from an older resourceVersion gets 410 Gone.
  std::size_t watch_history = 1000;
  // How often a quiet watch with allowWatchBookmarks=true gets a BOOKMARK (kube: ~1 min).
  std::chrono::milliseconds watch_bookmark_interval{5000};
  // Request bodies larger than this get 413 (kube-apiserver: 3 MiB).
  std::size_t max_body_bytes = 3 * 1024 * 1024;
  // The server has no RBAC; these requests alone are refused, 403 Forbidden with kube-apiserver's
  // message (events is forbidden: User "u" cannot list resource "events" in API group "" in the
  // namespace "ns"), for a test of what a user without a grant sees.
  std::vector<DeniedRequest> denied;
};

// One request served, as recorded for tests ("no PATCH was sent", "who wrote what").
struct AuditEntry {
  std::string method;        // GET, POST, PUT, PATCH, DELETE
  std::string path;          // e.g. /apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses/db
  std::string query;         // raw query string without '?'
  std::string username;      // "" when unauthenticated
  std::string content_type;  // of the request
  int status = 0;            // HTTP status code returned
  std::string body;          // request body for writes (POST/PUT/PATCH/DELETE), else ""
  // Wall clock: when the request arrived (its sender acted on what it knew then) and when the
  // answer was decided (a write takes effect then). Chaos checks line writes up with other events.
  std::chrono::system_clock::time_point received;
  std::chrono::system_clock::time_point time;
};

class ApiServer {
 public:
  explicit ApiServer(ApiServerOptions options = {});
  ~ApiServer();  // stops
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Returns once listening; throws std::runtime_error on bad options/CRDs. After stop(), start()
  // restarts the server on the same store: objects, resourceVersions, watch history, CRDs, audit,
  // TLS material and port are kept, as a kube-apiserver restart keeps etcd. (The port is rebound;
  // if another process took it meanwhile, start() throws.)
  void start();
  void stop();  // idempotent; closes every connection, ends every watch; the store survives

  std::string url() const;  // e.g. "https://127.0.0.1:41234"
  uint16_t port() const;
  std::string ca_pem() const;  // PEM of the serving CA ("" without TLS)

  // Writes a kubeconfig usable by kubectl and by our kube client (token may be "").
  void write_kubeconfig(const std::string& path, const std::string& token = "") const;

  std::vector<AuditEntry> audit() const;
  void clear_audit();

  // Fault injection for chaos tests: the next `count` requests whose method matches `method`
  // ("*" = any) and whose path matches the ECMAScript regex `path_regex` get a Kubernetes
  // Status error with HTTP `status` instead of being served. Nothing is stored for them.
  void inject_fault(const std::string& method, const std::string& path_regex, int status, int count = 1);
  // Delay fault: the next `count` matching requests are held for `delay` and then served
  // normally (a slow API server, e.g. to push a client past its timeout). A held request ends
  // early when the server stops.
  void inject_delay(const std::string& method, const std::string& path_regex, std::chrono::milliseconds delay,
                    int count = 1);
  void clear_faults();
  // Watch fault, a connection lost on its way with neither end told (a relay that stopped
  // forwarding, a dropped NAT entry): every watch of `resource` open now ("configmaps",
  // "postgreses.apps.cozystack.io") stays open but sends nothing more — no event, no bookmark,
  // not even its end at timeoutSeconds. With `later_too`, so does every watch of it opened until
  // resume_watches(). Lists and gets are served as usual. Returns how many open watches it
  // silenced, so a test can wait until the one it means was open.
  int silence_watches(const std::string& resource, bool later_too = false);
  // Watches of `resource` opened from now on are served again (silenced ones stay silent).
  void resume_watches(const std::string& resource);

  // Registers a CRD from YAML or JSON text, as if created with kubectl (throws on invalid CRDs).
  void register_crd(const std::string& yaml_or_json);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace dha::testing
