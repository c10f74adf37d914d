// Package anchorname names a project's anchor directory: the one rule
// both internal/anchor and the early forwarding of cmd/loopx follow. It
// imports only light packages of the standard library, so that the
// forwarding, which runs before the heavy packages are initialised, can
// use it.
package anchorname

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
)

// For is the name of the anchor directory of the project whose root is
// real (absolute, symbolic links resolved), below the state directory's
// projects/: its base name with every character but [A-Za-z0-9._-]
// replaced by '_' ("root" when none is left), a '-', and the first 8
// bytes of the SHA-256 of real in hex.
func For(real string) string {
	sum := sha256.Sum256([]byte(real))
	return safeName(path.Base(real)) + "-" + hex.EncodeToString(sum[:8])
}

// safeName keeps [A-Za-z0-9._-] of s and replaces anything else with '_'.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "root"
	}
	return b.String()
}
