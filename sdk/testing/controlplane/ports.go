package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
)

// loopbackPort returns `want` if it is free on 127.0.0.1 (a clear error if it is taken), or,
// when want is 0, a free random port outside the kernel's ephemeral range: a port the kernel
// picks for :0 comes from that range, where any outgoing connection (kube-apiserver to etcd,
// a test to kube-apiserver) may take it as its source port before the server binds it.
func loopbackPort(flag string, want int) (int, error) {
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
	for attempt := 0; attempt < 200; attempt++ {
		port := first + rand.IntN(last-first+1)
		if l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", port)); err == nil {
			l.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("%s: no free port found outside the ephemeral range %d-%d", flag, lo, hi)
}
