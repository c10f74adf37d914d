// Command gen writes policies/entries_gen.go: the modules each entry rule
// of the built-in bundle reaches (entries.Index). Run it with
// `go generate ./policies` after changing a module or an entrypoint
// annotation; TestEntryModules_UpToDate fails until then.
package main

import (
	"fmt"
	"os"

	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/policies/internal/entries"
)

func main() {
	index, err := entries.Index(policies.Modules())
	if err == nil {
		var src []byte
		if src, err = entries.Source("policies", index); err == nil {
			err = os.WriteFile("entries_gen.go", src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
