package shell

import "testing"

// benchLines are typical command lines of a day of agent work, as a
// PreToolUse hook reads them.
var benchLines = []string{
	"go test ./... 2>&1 | tail -20",
	`git add -A && git commit -m "engine: read the shell with mvdan.cc/sh"`,
	"git commit -m \"$(cat <<'MSG'\nFix the reader.\n\nIt reads heredocs.\nMSG\n)\"",
	"cd api && grep -rn 'func Permission' . | head",
}

func BenchmarkReadCommandLine(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Read(benchLines[i%len(benchLines)])
	}
}
