package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
)

// loopbackPort returns `want` if it is free on 127.0.0.1 (a clear error if it is taken), or,
// when want is 0, a free random port outside the kernel's ephemeral range: a port the kernel
// picks for :0 comes from that range, where any outgoing connection (kube-apiserver to etcd,
// a test to kube-apiserver) may take it as its source port before the server binds it.
// A random pick skips `chosen`, the ports already picked for this process: each probe is
// closed again, so nothing else stops two picks from landing on the same port (it happened:
// etcd got the port, and kube-apiserver failed to bind it).
func loopbackPort(flag string, want int, chosen ...int) (int, error) {
	if want != 0 {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", want))
		if err != nil {
			return 0, fmt.Errorf("%s: port %d on 127.0.0.1 is not available: %w", flag, want, err)
		}
		l.Close()
		return want, nil
	}
	lo, hi := 32768, 60999
	if f, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(f), &lo, &hi)
	}
	first, last := 10000, lo-1
	if last-first < 5000 {
		first, last = hi+1, 65535
	}
	if port, ok := randomPort(first, last, chosen, func(port int) bool {
		l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", port))
		if err != nil {
			return false
		}
		l.Close()
		return true
	}); ok {
		return port, nil
	}
	return 0, fmt.Errorf("%s: no free port found outside the ephemeral range %d-%d", flag, lo, hi)
}

// randomPort draws ports in [first, last] until `free` accepts one that is not in `chosen`
// (200 draws at most).
func randomPort(first, last int, chosen []int, free func(port int) bool) (int, bool) {
	for attempt := 0; attempt < 200; attempt++ {
		port := first + rand.IntN(last-first+1)
		if !slices.Contains(chosen, port) && free(port) {
			return port, true
		}
	}
	return 0, false
}
