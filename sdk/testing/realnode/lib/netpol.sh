# NetworkPolicy enforcement, when `up` is asked for it (DHA_REALNODE_NETPOL=1): the controller of
# sigs.k8s.io/kube-network-policies (sdk/testing/realnode/netpol, built by scripts/build-go-tool)
# as one more process of the fixture, deciding in userspace each new connection to or from the
# Pod range, and the iptables rules that hand it those connections.
#
# The rules are the fixture's own, not the controller's: its nftables `queue` statement needs a
# kernel feature this machine lacks (CONFIG_NFT_QUEUE), so its table is refused and nothing of
# it is written; the iptables NFQUEUE target (the xtables target run by nftables' compat layer)
# does the same job. They go in after the controller has bound the queue, and they fail closed
# (no --queue-bypass): a new connection nobody decides is dropped. The bridge hands Pod-to-Pod
# frames to netfilter (net.bridge.bridge-nf-call-iptables, which `up` requires to be 1), so a
# tenant Pod's connection to another Pod on the bridge is decided too, not only routed ones.
#
# Unlike the controller's own rules, traffic the node itself sends (the API server calling a
# webhook, the kubelet's probes) is decided like any other: a Pod's policy must admit the node's
# address (NODE_IP) for it. Without the enforcer nothing decides anything: every NetworkPolicy is
# stored and ignored, as on a CNI without policy support.

NETPOL_QUEUE=100
# The rules, as iptables -t mangle arguments after -A/-D.
NETPOL_RULES=(
  "POSTROUTING -d $POD_CIDR -m conntrack --ctstate NEW -m comment --comment dha-realnode-netpol -j NFQUEUE --queue-num $NETPOL_QUEUE"
  "POSTROUTING -s $POD_CIDR -m conntrack --ctstate NEW -m comment --comment dha-realnode-netpol -j NFQUEUE --queue-num $NETPOL_QUEUE"
)

netpol_wanted() { [[ "${DHA_REALNODE_NETPOL:-0}" == 1 ]]; }

netpol_preflight() {
  command -v iptables >/dev/null || die "missing: iptables (package iptables) — scripts/install-deps installs it"
  [[ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" == 1 ]] ||
    die "DHA_REALNODE_NETPOL=1 needs net.bridge.bridge-nf-call-iptables=1 (br_netfilter), or Pod-to-Pod traffic on the bridge is never decided"
  # Another program's queue of the same number would get our packets.
  ! netpol_queue_bound || die "NFQUEUE queue $NETPOL_QUEUE is already bound by another program"
}

# The queue is bound: /proc/net/netfilter/nfnetlink_queue lists it (first field: its number).
netpol_queue_bound() {
  awk -v q="$NETPOL_QUEUE" '$1 == q { found = 1 } END { exit !found }' /proc/net/netfilter/nfnetlink_queue 2>/dev/null
}

start_netpol() {
  start_proc netpol "$DHA_NETPOL" -kubeconfig "$STATE/cp/kubeconfig-admin" -node "$NODE_NAME" \
    -nfqueue "$NETPOL_QUEUE" -nft-table "${NFT_TABLE}_netpol"
  wait_for 60 "the NetworkPolicy enforcer bound NFQUEUE $NETPOL_QUEUE ($STATE/logs/netpol.log)" netpol_queue_bound ||
    { require_alive netpol; false; }
  local rule
  for rule in "${NETPOL_RULES[@]}"; do
    # shellcheck disable=SC2086  # the rule is words
    iptables -w -t mangle -A $rule
    echo "$rule" >>"$STATE/created-iptables"
  done
}

# Before the enforcer stops: with the rules left, every new Pod connection would be dropped.
netpol_rules_down() {
  local rule
  [[ -f "$STATE/created-iptables" ]] || return 0
  while read -r rule; do
    # shellcheck disable=SC2086
    iptables -w -t mangle -D $rule 2>/dev/null || say "could not remove the iptables rule: $rule"
  done <"$STATE/created-iptables"
  rm -f "$STATE/created-iptables"
}
