# The node's network: a bridge of its own with the node's address, the Pods' range on it (the
# CNI bridge plugin attaches Pods to it and never makes it a gateway, so it never turns on IP
# forwarding; the fixture turns it on for this bridge alone, see network_up), and one nftables
# table of our own:
#   - Pods reach the API server, which listens on 127.0.0.1 only, through one DNAT of the
#     `kubernetes` Service address, with route_localnet on this bridge alone (never on lo or
#     "all"). It runs before kube-proxy's own prerouting chains, which would reject a Service
#     without endpoints (the launcher keeps the `kubernetes` Service's endpoints empty).
#   - Nothing from the bridge is forwarded anywhere but the Pod and Service ranges, and nothing
#     for those ranges leaves by another interface: all traffic stays on this machine.
# The Service range is routed to the bridge, so a Service address kube-proxy has not yet
# programmed goes nowhere instead of to the default route.

network_up() {
  local api_port=$1
  ip link show "$BRIDGE" >/dev/null 2>&1 && die "a link named $BRIDGE already exists (a real node left behind? run: dha-real-node down DIR)"
  ip link add "$BRIDGE" type bridge
  echo "$BRIDGE" >"$STATE/created-link"
  ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  sysctl -qw "net.ipv4.conf.$BRIDGE.route_localnet=1"
  # A Pod reaching another Pod through a Service address: kube-proxy's DNAT turns the packet
  # around on the host, which must then route it back out of the bridge. Forwarding for what
  # arrives on this bridge only (net.ipv4.ip_forward stays as it is); the chains below keep it
  # between the Pod and Service ranges.
  sysctl -qw "net.ipv4.conf.$BRIDGE.forwarding=1"
  ip route add "$SERVICE_CIDR" dev "$BRIDGE"
  nft -f - <<NFT
table ip $NFT_TABLE {
  chain kubernetes_service_to_loopback {
    type nat hook prerouting priority -150; policy accept;
    iifname "$BRIDGE" ip daddr $KUBERNETES_SERVICE_IP tcp dport 443 dnat to 127.0.0.1:$api_port
  }
  chain forward_stays_inside {
    type filter hook forward priority -10; policy accept;
    iifname "$BRIDGE" ip daddr != { $POD_CIDR, $SERVICE_CIDR } drop
    oifname "$BRIDGE" ip saddr != { $POD_CIDR, $SERVICE_CIDR } drop
  }
  chain output_stays_inside {
    type filter hook output priority -10; policy accept;
    ip daddr { $POD_CIDR, $SERVICE_CIDR } oifname != { "$BRIDGE", "lo" } drop
  }
}
NFT
  echo "ip $NFT_TABLE" >>"$STATE/created-nft-tables"
}

# The CNI configuration containerd's CRI reads: the bridge above, host-local addresses from the
# Pod range (state in the fixture's /var/lib/cni), the default route via the node, portmap for
# hostPort. No masquerade.
write_cni_config() {
  mkdir -p "$STATE/cni/net.d"
  cat >"$STATE/cni/net.d/10-dha-realnode.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "dha-realnode",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR", "rangeStart": "${NODE_IP%.*}.10", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "0.0.0.0/0", "gw": "$NODE_IP"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
JSON
}

network_down() {
  local table
  if [[ -f "$STATE/created-nft-tables" ]]; then
    while read -r table; do
      nft delete table $table 2>/dev/null || true
    done <"$STATE/created-nft-tables"
    rm -f "$STATE/created-nft-tables"
  fi
  if [[ -f "$STATE/created-link" ]]; then
    ip link del "$(cat "$STATE/created-link")" 2>/dev/null || true
    rm -f "$STATE/created-link"
  fi
}
