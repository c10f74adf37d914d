//go:build unix && !linux

package nofollow

func openat2(int, string, int, uint32) (int, error, bool) { return -1, nil, false }
