#!/usr/bin/env bash
# Admission requests/s and p50/p99 over TLS keep-alive, webhook vs nginx serving a static
# AdmissionReview response over TLS, in the same run on loopback; and the CPU time each
# server spent per request (all its threads and child processes, from /proc/*/schedstat),
# which unlike requests/s does not depend on how much of its core a loaded machine left it.
#
#   bench/webhook/run.sh [SECONDS_PER_RUN]          default 10
#
# Env: DHA_BENCH_SERVER  webhook_bench_server binary (default: build-webhook-release/...; build
#                        it with -DCMAKE_BUILD_TYPE=Release, target webhook_bench_server)
#      CONNECTIONS       wrk connection counts to try (default "1 8 32")
#      SERVER_CPU / LOAD_CPU  CPUs to pin the server and wrk to (default 1 and 0)
# Needs: wrk, nginx, openssl, curl, taskset, pgrep (apt-get install wrk nginx).
# Every load run is bounded by SECONDS_PER_RUN; both servers are stopped on exit.
set -euo pipefail

seconds="${1:-10}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
server_bin="${DHA_BENCH_SERVER:-$root/build-webhook-release/bench/webhook/webhook_bench_server}"
connections="${CONNECTIONS:-1 8 32}"
server_cpu="${SERVER_CPU:-1}"
load_cpu="${LOAD_CPU:-0}"

for tool in wrk nginx openssl curl taskset pgrep; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install wrk nginx)" >&2; exit 2; }
done
[[ -x "$server_bin" ]] || { echo "error: $server_bin not built (cmake --build <release dir> --target webhook_bench_server)" >&2; exit 2; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done
  echo "error: nothing listening on $1" >&2; exit 1
}

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null

# The request: a GitOps identity changing replicas of a managed release (the deny path, which
# also formats the message: the more expensive branch).
marker='"apps.cozystack.io-autoscaling.cozystack.io/managed-by":"db"'
object() { echo "{\"apiVersion\":\"helm.toolkit.fluxcd.io/v2\",\"kind\":\"HelmRelease\",\"metadata\":{\"name\":\"postgres-db\",\"namespace\":\"tenant-a\",\"annotations\":{$marker}},\"spec\":{\"interval\":\"5m\",\"chart\":{\"spec\":{\"chart\":\"postgres\",\"version\":\"0.1.0\"}},\"values\":{\"replicas\":$1,\"size\":\"10Gi\",\"resourcesPreset\":\"small\"}}}"; }
review="{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"0df28fbd-5f5f-4b6f-a7e3-3c9f0b6d1e11\",\"kind\":{\"group\":\"helm.toolkit.fluxcd.io\",\"version\":\"v2\",\"kind\":\"HelmRelease\"},\"operation\":\"UPDATE\",\"userInfo\":{\"username\":\"system:serviceaccount:flux-system:kustomize-controller\",\"groups\":[\"system:serviceaccounts\"]},\"oldObject\":$(object 3),\"object\":$(object 5)}}"
printf '%s' "$review" >"$work/review.json"
static_reply='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"0df28fbd-5f5f-4b6f-a7e3-3c9f0b6d1e11","allowed":false,"status":{"code":403,"reason":"Forbidden","message":"replicas of this database is managed by DatabaseHorizontalAutoscaler \"db\"; delete the DHA to regain manual control (attempted change 3 -> 5 by \"system:serviceaccount:flux-system:kustomize-controller\")"}}}'

cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/review.json", "rb")
wrk.body = f:read("*a")
f:close()
LUA

nginx_port="$(free_port)"
mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 90s;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$nginx_port ssl;
    ssl_certificate $work/tls.crt;
    ssl_certificate_key $work/tls.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      default_type application/json;
      return 200 '$static_reply';
    }
  }
}
CONF
taskset -c "$server_cpu" nginx -c "$work/nginx.conf" -p "$work/nginx" -g 'daemon off;' &
nginx_pid=$!
pids+=($!)
wait_port "$nginx_port"

taskset -c "$server_cpu" "$server_bin" --cert-dir "$work" --port 0 --threads 1 >"$work/webhook.out" &
webhook_pid=$!
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/webhook.out" 2>/dev/null && break; sleep 0.05; done
webhook_port="$(awk '/listening on/ {print $3}' "$work/webhook.out")"
[[ -n "$webhook_port" ]] || { echo "error: webhook_bench_server did not start" >&2; exit 1; }

# Both must answer the same review before they are measured.
for port in "$nginx_port" "$webhook_port"; do
  reply="$(curl -sk --http1.1 -H 'Content-Type: application/json' --data-binary @"$work/review.json" \
    "https://127.0.0.1:$port/validate-helmrelease-replicas")"
  [[ "$reply" == *'"allowed":false'*'attempted change 3 -> 5'* ]] || { echo "error: unexpected reply from $port: $reply" >&2; exit 1; }
done

# wrk prints latencies as 812.00us / 1.20ms / 1.01s: convert to ms.
to_ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'; }
# CPU nanoseconds used so far by a process: all its threads and those of its children (the
# nginx worker is a child of the master).
cpu_ns() {
  local total=0 p t ns
  for p in "$1" $(pgrep -P "$1" || true); do
    for t in /proc/"$p"/task/*/schedstat; do
      read -r ns _ <"$t" 2>/dev/null && total=$((total + ns))
    done
  done
  echo "$total"
}
measure() { # port connections server_pid -> "rps p50 p99 cpu_us_per_request"
  local out before after
  before="$(cpu_ns "$3")"
  out="$(taskset -c "$load_cpu" wrk -t1 -c"$2" -d"${seconds}s" --latency -s "$work/post.lua" \
    "https://127.0.0.1:$1/validate-helmrelease-replicas")"
  after="$(cpu_ns "$3")"
  local rps p50 p99 errors requests
  rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
  p50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  requests="$(awk '/ requests in / {print $1}' <<<"$out")"
  errors="$(awk '/Non-2xx or 3xx responses:|Socket errors:/ {print}' <<<"$out")"
  [[ -z "$errors" ]] || echo "warning: port $1: $errors" >&2
  echo "$rps $(to_ms "$p50") $(to_ms "$p99") $(awk -v d=$((after - before)) -v r="$requests" 'BEGIN { printf "%.1f", (r > 0 ? d / 1000 / r : 0) }')"
}

echo "wrk ${seconds}s per run, 1 wrk thread on CPU $load_cpu, servers on CPU $server_cpu (1 worker / 1 thread), TLS keep-alive"
echo "cpu_us: server CPU time per request; cpu_ratio: nginx's over the webhook's (what rps_ratio would be with a core each)"
printf '%-6s | %12s %9s %9s %7s | %12s %9s %9s %7s | %9s %9s\n' conns nginx_rps p50_ms p99_ms cpu_us \
  webhook_rps p50_ms p99_ms cpu_us rps_ratio cpu_ratio
for c in $connections; do
  read -r n_rps n_p50 n_p99 n_cpu <<<"$(measure "$nginx_port" "$c" "$nginx_pid")"
  read -r w_rps w_p50 w_p99 w_cpu <<<"$(measure "$webhook_port" "$c" "$webhook_pid")"
  ratio="$(awk -v w="$w_rps" -v n="$n_rps" 'BEGIN { printf "%.2f", (n > 0 ? w / n : 0) }')"
  cpu_ratio="$(awk -v w="$w_cpu" -v n="$n_cpu" 'BEGIN { printf "%.2f", (w > 0 ? n / w : 0) }')"
  printf '%-6s | %12s %9s %9s %7s | %12s %9s %9s %7s | %9s %9s\n' "$c" "$n_rps" "$n_p50" "$n_p99" "$n_cpu" \
    "$w_rps" "$w_p50" "$w_p99" "$w_cpu" "$ratio" "$cpu_ratio"
done
