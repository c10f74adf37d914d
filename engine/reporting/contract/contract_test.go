package contract

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// fill sets every field of the value v points at, recursively, to a
// non-zero value, so that no field's omitempty hides a missing one.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint64:
		v.SetUint(5)
	case reflect.Float64:
		v.SetFloat(0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]any{"k": "v"}))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	default:
		panic("fill: " + v.Kind().String())
	}
}

func filled[T any]() T {
	var x T
	fill(reflect.ValueOf(&x).Elem())
	return x
}

// TestContract_SameJSONAsTheRecords: each output type, built from a
// record with every field set (and from the zero record), marshals to the
// bytes the record itself does today, so the --json documents that showed
// records show the same.
func TestContract_SameJSONAsTheRecords(t *testing.T) {
	for _, tc := range []struct {
		name           string
		record, output func(full bool) any
	}{
		{"todo", func(f bool) any { return pick(f, filled[records.Todo]()) }, func(f bool) any { return TodoOf(pick(f, filled[records.Todo]())) }},
		{"gate", func(f bool) any { return pick(f, filled[records.Gate]()) }, func(f bool) any { return GateOf(pick(f, filled[records.Gate]())) }},
		{"evidence", func(f bool) any { return pick(f, filled[records.Evidence]()) }, func(f bool) any { return EvidenceOf(pick(f, filled[records.Evidence]())) }},
		{"round", func(f bool) any { return pick(f, filled[records.Round]()) }, func(f bool) any { return RoundOf(pick(f, filled[records.Round]())) }},
		{"agent", func(f bool) any { return pick(f, filled[records.Agent]()) }, func(f bool) any { return AgentOf(pick(f, filled[records.Agent]())) }},
		{"event", func(f bool) any { return pick(f, filled[records.Event]()) }, func(f bool) any { return EventOf(pick(f, filled[records.Event]())) }},
		{"gate poll", func(f bool) any { return pick(f, filled[records.GatePoll]()) }, func(f bool) any { return GatePollOf(pick(f, filled[records.GatePoll]())) }},
		{"handoff", func(f bool) any { return pick(f, filled[records.Handoff]()) }, func(f bool) any { return HandoffOf(pick(f, filled[records.Handoff]())) }},
		{"goal state", func(f bool) any { return pick(f, filled[records.GoalState]()) }, func(f bool) any { return GoalStateOf(pick(f, filled[records.GoalState]())) }},
		{"lease result", func(f bool) any {
			type result struct { // lease.Result's shape (engine/mutating/lease)
				Todo     records.Todo   `json:"todo"`
				Lease    records.Lease  `json:"lease"`
				Replayed bool           `json:"replayed"`
				Previous *records.Lease `json:"previous"`
			}
			return pick(f, result{filled[records.Todo](), filled[records.Lease](), true, new(filled[records.Lease]())})
		}, func(f bool) any {
			if !f {
				return LeaseResultOf(records.Todo{}, records.Lease{}, false, nil)
			}
			return LeaseResultOf(filled[records.Todo](), filled[records.Lease](), true, new(filled[records.Lease]()))
		}},
		{"ledger entry", func(f bool) any { return pick(f, filled[records.LedgerEntry]()) }, func(f bool) any { return LedgerEntryOf(pick(f, filled[records.LedgerEntry]())) }},
		{"ledger entry pointer", func(f bool) any {
			if !f {
				return (*records.LedgerEntry)(nil)
			}
			return new(filled[records.LedgerEntry]())
		}, func(f bool) any {
			if !f {
				return Ptr((*records.LedgerEntry)(nil), LedgerEntryOf)
			}
			return Ptr(new(filled[records.LedgerEntry]()), LedgerEntryOf)
		}},
		{"handoffs", func(f bool) any { return pickList(f, filled[records.Handoff]()) }, func(f bool) any { return Handoffs(pickList(f, filled[records.Handoff]())) }},
		{"todos", func(f bool) any { return pickList(f, filled[records.Todo]()) }, func(f bool) any { return Todos(pickList(f, filled[records.Todo]())) }},
		{"gates", func(f bool) any { return pickList(f, filled[records.Gate]()) }, func(f bool) any { return Gates(pickList(f, filled[records.Gate]())) }},
		{"evidences", func(f bool) any { return pickList(f, filled[records.Evidence]()) }, func(f bool) any { return Evidences(pickList(f, filled[records.Evidence]())) }},
	} {
		for _, full := range []bool{true, false} {
			want, err := json.Marshal(tc.record(full))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(tc.output(full))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s (full %v):\n got %s\nwant %s", tc.name, full, got, want)
			}
		}
	}
}

// pick is x when full, else the zero value of its type.
func pick[T any](full bool, x T) T {
	if full {
		return x
	}
	var zero T
	return zero
}

// pickList is a list of x when full, else nil.
func pickList[T any](full bool, x T) []T {
	if full {
		return []T{x, x}
	}
	return nil
}
