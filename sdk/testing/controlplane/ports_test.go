package main

import "testing"

// Two ports to draw from, one already chosen: the pick is always the other. Without the skip,
// half the draws returned the chosen port (etcd and kube-apiserver on one port).
func TestRandomPortSkipsThePortsAlreadyChosen(t *testing.T) {
	for i := 0; i < 100; i++ {
		port, ok := randomPort(20000, 20001, []int{20000}, func(int) bool { return true })
		if !ok || port != 20001 {
			t.Fatalf("draw %d: got %d, %v; want 20001", i, port, ok)
		}
	}
	if _, ok := randomPort(20000, 20000, []int{20000}, func(int) bool { return true }); ok {
		t.Fatal("the only port is taken: want no port")
	}
	if _, ok := randomPort(20000, 20001, nil, func(int) bool { return false }); ok {
		t.Fatal("no port is free: want no port")
	}
}
