# Shared by the CloudNativePG tests on the real node (after lib.sh and chart_lib.sh): CNPG's
# manager and real PostgreSQL 15 as images made here, CNPG installed from its release manifest,
# hostPath volumes for the instances, kube-state-metrics and vmagent feeding VictoriaMetrics the
# series the postgres plugin reads, and a bounded pgbench load.
CNPG_DIR=$REPO_ROOT/sdk/testing/realnode/cnpg
CNPG_VERSION=1.27.1
CNPG_IMAGE=localhost/cloudnative-pg:$CNPG_VERSION
PG_IMAGE=localhost/dha-postgresql:15   # CNPG reads the major version from the tag
DB_NS=tenant-db CLUSTER=db STORAGE_CLASS=dha-local
PGBENCH_SCALE=${DHA_REALNODE_PGBENCH_SCALE:-5}   # pgbench -i -s: 100 000 rows (about 16 MB) each

cnpg_prerequisites() {
  local tool
  for tool in pgbench psql vmagent victoria-metrics buildah; do
    command -v "$tool" >/dev/null || skip_or_fail "no $tool (scripts/install-deps installs it)"
  done
}

# The manager built from the pinned module (sdk/testing/realnode/cnpg/go.mod), its image, the
# PostgreSQL image, and CNPG's release manifest from the same module with the image refs pointed
# at the local image and never pulled.
cnpg_install() {
  local start manager module_dir
  start=$(now_ms)
  manager=$("$REPO_ROOT/scripts/build-go-tool" sdk/testing/realnode/cnpg \
    github.com/cloudnative-pg/cloudnative-pg/cmd/manager cnpg-manager) || fail "could not build CNPG's manager"
  mkdir -p "$WORK/cnpg-context"
  cp "$manager" "$WORK/cnpg-context/manager_amd64"
  "$FIXTURE" dockerfile "$WORK/state" "$CNPG_DIR/manager.Dockerfile" "$WORK/cnpg-context" "$CNPG_IMAGE" ||
    fail "CNPG's manager image did not build (above)"
  "$FIXTURE" dockerfile "$WORK/state" "$CNPG_DIR/postgres.Dockerfile" "$CNPG_DIR" "$PG_IMAGE" ||
    fail "the PostgreSQL image did not build (above)"
  note "images $CNPG_IMAGE and $PG_IMAGE built in $(( $(now_ms) - start )) ms"
  module_dir=$(cd "$CNPG_DIR" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly "${DHA_GO:-/usr/local/go/bin/go}" list -m \
    -f '{{.Dir}}' github.com/cloudnative-pg/cloudnative-pg) || fail "CNPG's module is not in Go's module cache"
  sed -e "s|ghcr.io/cloudnative-pg/cloudnative-pg:$CNPG_VERSION|$CNPG_IMAGE|g" \
      -e 's|imagePullPolicy: Always|imagePullPolicy: IfNotPresent|g' \
      "$module_dir/releases/cnpg-$CNPG_VERSION.yaml" >"$WORK/cnpg.yaml"
  grep -q "ghcr.io" "$WORK/cnpg.yaml" && fail "CNPG's manifest still names an image in a registry"
  # chart_setup applied the test kit's trimmed stand-in for CNPG's Cluster CRD; the real one
  # replaces it (an apply over it would merge the two schemas).
  kubectl delete crd clusters.postgresql.cnpg.io --ignore-not-found >/dev/null
  start=$(now_ms)
  kubectl apply --server-side -f "$WORK/cnpg.yaml" >"$WORK/cnpg-apply.log" 2>&1 ||
    { tail -n 20 "$WORK/cnpg-apply.log"; fail "CNPG's manifest did not apply"; }
  if ! until_ok_quiet 240 kubectl -n cnpg-system rollout status deployment/cnpg-controller-manager --timeout=5s; then
    kubectl -n cnpg-system get pods -o wide >&2 || true
    kubectl -n cnpg-system logs deployment/cnpg-controller-manager --tail=20 >&2 || true
    fail "not within 240s: CNPG's controller manager available (above)"
  fi
  note "CloudNativePG $CNPG_VERSION available $(( $(now_ms) - start )) ms after its manifest was applied"
}

# storage_setup N: a StorageClass without a provisioner and N hostPath PersistentVolumes, each a
# directory of the node's state (gone with `down`) owned by PostgreSQL's uid/gid 26, mode 0700.
storage_setup() {
  local n=$1 i dir
  kubectl apply -f - >/dev/null <<YAML
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: $STORAGE_CLASS}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
YAML
  for ((i = 1; i <= n; i++)); do
    dir=$DHA_REALNODE_STATE/volumes/pv$i
    mkdir -p "$dir" && chown 26:26 "$dir" && chmod 0700 "$dir"
    kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: dha-pv$i}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $STORAGE_CLASS
  hostPath: {path: $dir, type: Directory}
YAML
  done
}

# cluster_create INSTANCES: the Cluster, created once CNPG's webhooks answer (its manifest makes
# them fail closed, so a write before the webhook Service routes is refused, not let through).
cluster_create() {
  kubectl create namespace "$DB_NS" >/dev/null
  cat >"$WORK/cluster.yaml" <<YAML
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: $CLUSTER, namespace: $DB_NS}
spec:
  instances: $1
  imageName: $PG_IMAGE
  imagePullPolicy: IfNotPresent
  enableSuperuserAccess: true
  storage: {size: 1Gi, storageClass: $STORAGE_CLASS}
  postgresql:
    # max_standby_streaming_delay: how long a standby's replay waits for a conflicting query
    # (30 s by default) before cancelling it; realnode.cnpg's lag phase needs the wait longer.
    parameters: {shared_buffers: 32MB, max_connections: "100", max_standby_streaming_delay: 300s}
  bootstrap:
    initdb: {database: app, owner: app}
YAML
  until_ok 120 "the Cluster admitted by CNPG's webhooks" kubectl apply -f "$WORK/cluster.yaml"
}

cluster_field() { kubectl -n "$DB_NS" get cluster "$CLUSTER" -o jsonpath="{$1}" 2>/dev/null; }
spec_instances() { cluster_field .spec.instances; }
ready_instances() { cluster_field .status.readyInstances; }
primary() { cluster_field .status.currentPrimary; }

# psql_primary SQL: runs SQL as postgres on the current primary, from the host to its Pod's
# address (CNPG's superuser secret; the host reaches Pods on the node's bridge).
psql_primary() {
  local ip password
  ip=$(kubectl -n "$DB_NS" get pod "$(primary)" -o jsonpath='{.status.podIP}' 2>/dev/null) || return 1
  password=$(kubectl -n "$DB_NS" get secret "$CLUSTER-superuser" -o go-template='{{.data.password | base64decode}}' 2>/dev/null) || return 1
  PGPASSWORD=$password PGCONNECT_TIMEOUT=5 psql -h "$ip" -U postgres -d postgres -XtAq -c "$1" 2>/dev/null
}

# Standbys the primary streams to, by name, one per line.
streaming_standbys() { psql_primary "select application_name from pg_stat_replication where state = 'streaming' order by 1"; }
streaming_count() { streaming_standbys | grep -c . || true; }

# cluster_settled N: N instances asked, N ready, N-1 standbys streaming from the primary.
cluster_settled() {
  [[ "$(spec_instances)" == "$1" && "$(ready_instances)" == "$1" && "$(streaming_count)" == "$(($1 - 1))" ]]
}

cluster_describe() {
  echo "Cluster: instances=$(spec_instances) ready=$(ready_instances) phase='$(cluster_field .status.phase)' primary=$(primary)"
  echo "streaming: $(streaming_standbys | tr '\n' ' ')"
  kubectl -n "$DB_NS" get pods,pvc -o wide 2>&1 | sed 's/^/  /'
}

# A loopback port nothing listens on now (the kernel's choice; other tests on this machine pick
# theirs the same way, so a fixed or random one may be taken).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# metrics_setup: kube-state-metrics (kube_pod_labels with the CNPG labels the plugin joins on) and
# vmagent scraping it and every instance's exporter (port 9187, Kubernetes service discovery with
# the admin kubeconfig; namespace and pod labels as a PodMonitor sets them), writing into
# VictoriaMetrics at $vm_url.
metrics_setup() {
  local ksm ksm_port agent_port pid
  ksm=$("$REPO_ROOT/scripts/build-go-tool" sdk/testing/realnode/kube-state-metrics \
    k8s.io/kube-state-metrics/v2 kube-state-metrics) || fail "could not build kube-state-metrics"
  ksm_port=$(free_port)
  "$ksm" --kubeconfig "$KUBECONFIG" --host 127.0.0.1 --port "$ksm_port" --telemetry-host 127.0.0.1 \
    --telemetry-port "$(free_port)" --resources pods --namespaces "$DB_NS" \
    --metric-labels-allowlist 'pods=[cnpg.io/cluster,cnpg.io/instanceRole]' >"$WORK/ksm.log" 2>&1 &
  pid=$!
  CLEANUP+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
  until_ok 60 "kube-state-metrics on 127.0.0.1:$ksm_port ($WORK/ksm.log)" wget -q -O /dev/null "http://127.0.0.1:$ksm_port/metrics"
  cat >"$WORK/vmagent.yaml" <<YAML
global: {scrape_interval: 5s, scrape_timeout: 4s}
scrape_configs:
- job_name: kube-state-metrics
  honor_labels: true
  static_configs: [{targets: ["127.0.0.1:$ksm_port"]}]
- job_name: cnpg-instances
  kubernetes_sd_configs:
  - role: pod
    kubeconfig_file: $KUBECONFIG
    namespaces: {names: [$DB_NS]}
  relabel_configs:
  - {source_labels: [__meta_kubernetes_pod_label_cnpg_io_cluster], regex: .+, action: keep}
  - {source_labels: [__meta_kubernetes_pod_container_port_number], regex: "9187", action: keep}
  - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
  - {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
YAML
  agent_port=$(free_port)
  vmagent -promscrape.config="$WORK/vmagent.yaml" -remoteWrite.url="$vm_url/api/v1/write" \
    -remoteWrite.tmpDataPath="$WORK/vmagent-data" -remoteWrite.flushInterval=1s -promscrape.kubernetesSDCheckInterval=2s \
    -httpListenAddr="127.0.0.1:$agent_port" >"$WORK/vmagent.log" 2>&1 &
  pid=$!
  CLEANUP+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
  until_ok 30 "vmagent on 127.0.0.1:$agent_port ($WORK/vmagent.log)" wget -q -O /dev/null "http://127.0.0.1:$agent_port/health"
}

# vm_query PROMQL: the instant query's first value (empty when there is none).
vm_query() {
  curl -sS --max-time 5 "$vm_url/api/v1/query" --data-urlencode "query=$1" |
    sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p'
}

# The app user's connection settings to a Service of the Cluster (rw or ro), from CNPG's secret.
pg_env() {
  local svc=$1 secret=$CLUSTER-app
  PGHOST=$(kubectl -n "$DB_NS" get service "$CLUSTER-$svc" -o jsonpath='{.spec.clusterIP}')
  PGUSER=$(kubectl -n "$DB_NS" get secret "$secret" -o go-template='{{.data.username | base64decode}}')
  PGPASSWORD=$(kubectl -n "$DB_NS" get secret "$secret" -o go-template='{{.data.password | base64decode}}')
  PGDATABASE=app PGPORT=5432 PGCONNECT_TIMEOUT=5
  export PGHOST PGUSER PGPASSWORD PGDATABASE PGPORT PGCONNECT_TIMEOUT
}

# read_load CLIENTS SECONDS NAME: pgbench against the -ro Service in the background, stopping by
# itself after SECONDS. Each transaction is pgbench's select-only one (-S) followed by a 100 ms
# pause inside the same connection, so a client's backend is busy ("active") most of the time and
# the active-backends series counts the clients. The pid goes to $WORK/NAME.pid.
read_load() {
  local clients=$1 seconds=$2 name=$3
  cat >"$WORK/read.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT pg_sleep(0.1);
SQL
  ( pg_env ro
    exec pgbench -n -c "$clients" -j 1 -T "$seconds" -D scale="$PGBENCH_SCALE" -f "$WORK/read.sql" -P 10 ) >"$WORK/$name.log" 2>&1 &
  echo $! >"$WORK/$name.pid"
  CLEANUP+=("kill $! 2>/dev/null")
}

# write_burst TPS SECONDS NAME: a bulk load on the primary through the -rw Service in the
# background, stopping by itself after SECONDS: TRUNCATE of the staging table burst, then 2
# sessions committing inserts of 2000 rows (about 0.5 MB of WAL each) into it, TPS a second in
# all. The pid goes to $WORK/NAME.pid.
write_burst() {
  local tps=$1 seconds=$2 name=$3
  cat >"$WORK/burst.sql" <<'SQL'
INSERT INTO burst SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 2000) g;
SQL
  ( pg_env rw
    psql -XqAt -c "TRUNCATE burst" || exit 1
    exec pgbench -n -c 2 -j 2 -R "$tps" -T "$seconds" -f "$WORK/burst.sql" -P 5 ) >"$WORK/$name.log" 2>&1 &
  echo $! >"$WORK/$name.pid"
  CLEANUP+=("kill $! 2>/dev/null")
}

# psql_pod POD SQL: as psql_primary, on the instance POD.
psql_pod() {
  local ip password
  ip=$(kubectl -n "$DB_NS" get pod "$1" -o jsonpath='{.status.podIP}' 2>/dev/null) || return 1
  password=$(kubectl -n "$DB_NS" get secret "$CLUSTER-superuser" -o go-template='{{.data.password | base64decode}}' 2>/dev/null) || return 1
  PGPASSWORD=$password PGCONNECT_TIMEOUT=5 psql -h "$ip" -U postgres -d app -XtAq -c "$2" 2>/dev/null
}

# DHA_REALNODE_KEEP_LOGS=DIR: before the node goes down, what a failed run needs to be read
# afterwards (the Pods, CNPG's and the operator's logs, each instance's log, vmagent's,
# kube-state-metrics') is copied to DIR.
cnpg_keep_logs() {
  local dir=${DHA_REALNODE_KEEP_LOGS:-} pod
  [[ -n "$dir" ]] || return 0
  mkdir -p "$dir"
  kubectl get pods,pvc,pv,jobs,clusters -A -o wide >"$dir/objects.txt" 2>&1 || true
  kubectl get events -A --sort-by=.lastTimestamp >"$dir/events.txt" 2>&1 || true
  kubectl -n cnpg-system logs deployment/cnpg-controller-manager >"$dir/cnpg-manager.log" 2>&1 || true
  for pod in $(kubectl -n "$DB_NS" get pods -o name 2>/dev/null); do
    kubectl -n "$DB_NS" logs "$pod" --all-containers >"$dir/${pod#pod/}.log" 2>&1 || true
  done
  for pod in $(kubectl -n "$NAMESPACE" get pods -o name 2>/dev/null); do
    kubectl -n "$NAMESPACE" logs "$pod" >"$dir/${pod#pod/}.log" 2>&1 || true
  done
  kubectl -n "$DB_NS" get databasehorizontalautoscalers -o yaml >"$dir/dha.yaml" 2>&1 || true
  cp "$WORK"/*.log "$dir/" 2>/dev/null || true
  cp "$WORK/state/logs/"*.log "$dir/" 2>/dev/null || true
}

# checkpoint_wait_ms FROM_MS TO_MS: how long the primary's checkpoint for a base backup took
# between the two times (pg_basebackup asks for one, spread by default, before it copies: CNPG's
# join does not ask for a fast one), from the "checkpoint starting: force wait" and
# "checkpoint complete" records in the primary's log; empty if there is none.
checkpoint_wait_ms() {
  kubectl -n "$DB_NS" logs "$(primary)" -c postgres 2>/dev/null | python3 -c '
import json, sys
from datetime import datetime, timezone
lo, hi = int(sys.argv[1]), int(sys.argv[2])
start = None
for line in sys.stdin:
    try:
        r = json.loads(line)["record"]
    except (ValueError, KeyError, TypeError):
        continue
    t = datetime.strptime(r["log_time"], "%Y-%m-%d %H:%M:%S.%f %Z").replace(tzinfo=timezone.utc).timestamp() * 1000
    if not lo <= t <= hi:
        continue
    if r.get("message", "").startswith("checkpoint starting: force wait"):
        start = t
    elif r.get("message", "").startswith("checkpoint complete") and start is not None:
        print(int(t - start))
        break
' "$1" "$2"
}
