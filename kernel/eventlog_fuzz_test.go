package kernel

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// fuzzLog is a valid log of five events and its head.
func fuzzLog(tb testing.TB) ([]byte, LogHead) {
	tb.Helper()
	evs := []records.Event{
		{Seq: 1, At: t0, Kind: "todo.added", Goal: "g1", Actor: "human", Subject: "t-01", Message: "first"},
		{Seq: 2, At: t0, Kind: "gate.raised", Goal: "g1", Subject: "g-01", Message: "Ship it?", Data: map[string]any{"scope": "goal"}},
		{Seq: 4, At: t0.Add(time.Hour), Kind: "permission.denied", Goal: "g1", Actor: "a1", Data: map[string]any{"codes": []any{"protected_path"}}},
		{Seq: 5, At: t0.Add(time.Hour), Kind: "review.generated", Goal: "g1", Actor: "human"},
		{Seq: 9, At: t0.Add(2 * time.Hour), Kind: "store.recovered", Actor: "loopx", Message: "ünïcode \u2028 and \"quotes\""},
	}
	b, head, err := appendRecords(LogHead{}, 3, evs)
	if err != nil {
		tb.Fatal(err)
	}
	return b, head
}

// FuzzEventLogReader damages a valid log (op 0: flip bits of one byte, 1:
// zero a region, 2: truncate, 3: overwrite a region with the fuzzer's
// bytes) and reads it as Open and the readers do: never a panic, and a log
// that differs from what was committed is never accepted as it.
func FuzzEventLogReader(f *testing.F) {
	f.Add(uint8(0), uint16(10), uint16(1), []byte{0x01})
	f.Add(uint8(1), uint16(300), uint16(64), []byte{})
	f.Add(uint8(2), uint16(500), uint16(0), []byte{})
	f.Add(uint8(3), uint16(40), uint16(3), []byte(`"i"`))
	f.Add(uint8(0), uint16(0xffff), uint16(1), []byte{'\n'})
	f.Fuzz(func(t *testing.T, op uint8, pos, n uint16, with []byte) {
		orig, head := fuzzLog(t)
		b := append([]byte(nil), orig...)
		p := int(pos) % (len(b) + 1)
		end := min(p+int(n), len(b))
		switch op % 4 {
		case 0:
			if p < len(b) {
				x := byte(0x01)
				if len(with) > 0 {
					x = with[0]
				}
				b[p] ^= x
			}
		case 1:
			clear(b[p:end])
		case 2:
			b = b[:p]
		case 3:
			copy(b[p:end], with)
		}
		_, err := scanLog("events.log", nil, bytes.NewReader(b), -1, nil)
		got, _ := scanLog("events.log", nil, bytes.NewReader(b), -1, nil)
		if err == nil {
			err = checkEnds("events.log", got, head)
		}
		if !bytes.Equal(b, orig) && err == nil {
			t.Fatalf("damaged log accepted as committed (op %d at %d)", op%4, p)
		}
		if bytes.Equal(b, orig) && err != nil {
			t.Fatalf("whole log refused: %v", err)
		}
		// What Open reads: the record ending at the head.
		path := filepath.Join(t.TempDir(), EventsFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if int64(len(b)) >= head.Size && head.Size > 0 {
			_ = endsAt(fh, head)
		}
		for end := int64(1); end <= int64(len(b)); end += 97 {
			_, _, _ = recordEndingAt(fh, end)
		}
		var le *LogError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("not a LogError: %v", err)
		}
	})
}
