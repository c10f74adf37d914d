package errs

import (
	"fmt"
	"maps"
	"sync"
)

// Hint names what a person can do about an error, leaving the words to the
// command layer: the package that finds the problem says what is wrong
// (Error.Message) and which remedy applies (Key, with the values its
// sentence names in Args, e.g. a revision), and the command layer words
// each remedy once (SetHints). The zero Hint is none.
type Hint struct {
	Key  string
	Args []any
}

var (
	hintsMu sync.RWMutex
	hints   map[string]string
)

// SetHints words the hints: each key's sentence is a fmt format of its
// Args ("restore it, or run `loopx doctor --accept-store` (human) to
// continue from revision %d"). The command layer calls it once, before it
// runs a command; a later call replaces the sentences. Errors whose hint
// has no sentence read without one.
func SetHints(sentences map[string]string) {
	hintsMu.Lock()
	defer hintsMu.Unlock()
	hints = maps.Clone(sentences)
}

// String is the hint's sentence with its Args, "" for the zero Hint or a
// key SetHints gave no sentence.
func (h Hint) String() string {
	if h.Key == "" {
		return ""
	}
	hintsMu.RLock()
	format, ok := hints[h.Key]
	hintsMu.RUnlock()
	if !ok {
		return ""
	}
	return fmt.Sprintf(format, h.Args...)
}
