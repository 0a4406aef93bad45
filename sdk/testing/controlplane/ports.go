package main

import (
	"fmt"
	"net"
)

// loopbackPort returns `want` if it is free on 127.0.0.1 (a clear error if it is taken), or a
// free port the kernel picks when want is 0. The port is released before the server binds it.
func loopbackPort(flag string, want int) (int, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", want))
	if err != nil {
		return 0, fmt.Errorf("%s: port %d on 127.0.0.1 is not available: %w", flag, want, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
