package trust

import (
	"io/fs"
	"sync"
	"time"
)

// HashCache keeps the content hash of files between scans, keyed by path
// and by what the kernel says of the file (device, inode, size, mode,
// modification and change times): any write changes the change time,
// which no unprivileged process can set back. A file changed within the
// last two seconds is not cached (a timestamp's granularity could hide a
// second write). The zero value is not usable: use NewHashCache; a nil
// *HashCache caches nothing.
type HashCache struct {
	mu sync.Mutex
	m  map[string]cached
	// now is the clock (time.Now; tests set it).
	now func() time.Time
}

type cached struct {
	stat statKey
	sum  [32]byte
}

// statKey is what the kernel says of a file that any write changes.
type statKey struct {
	dev, ino         uint64
	size             int64
	mode             fs.FileMode
	mtimeNs, ctimeNs int64
}

// SharedHashes is the process's hash cache, which scanners share unless
// they are given their own (Scanner.Cache).
var SharedHashes = NewHashCache()

// NewHashCache returns an empty cache.
func NewHashCache() *HashCache {
	return &HashCache{m: map[string]cached{}, now: time.Now}
}

func (c *HashCache) get(p string, fi fs.FileInfo) ([32]byte, bool) {
	if c == nil {
		return [32]byte{}, false
	}
	k, ok := keyOf(fi)
	if !ok {
		return [32]byte{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[p]
	if !ok || e.stat != k {
		return [32]byte{}, false
	}
	return e.sum, true
}

func (c *HashCache) put(p string, fi fs.FileInfo, sum [32]byte) {
	if c == nil {
		return
	}
	k, ok := keyOf(fi)
	if !ok {
		return
	}
	recent := c.now().Add(-2 * time.Second).UnixNano()
	if k.mtimeNs > recent || k.ctimeNs > recent {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[p] = cached{stat: k, sum: sum}
}
