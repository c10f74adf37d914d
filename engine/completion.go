package engine

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel/records"
)

// OpenIDs returns, for shell completion, the ids of the todos not done or
// cancelled and of the open gates of the project at root (stateHome as
// Options.StateHome), sorted. It reads the read model alone, and only while
// it describes the store the anchor names: no store is opened, no lock
// taken, nothing written; none when there is no such read model (a
// project never used, or a store changed since). With res (a server's
// kept store) it reads res's model in memory instead.
func OpenIDs(root, stateHome string, now time.Time, res *Resident) (todos, gates []string) {
	s := newSession(root, filepath.Join(root, scaffold.StateDirName), stateHome, func() time.Time { return now }, 0, res)
	rm := s.loadReadModel(now)
	if rm == nil {
		return nil, nil
	}
	for goal, gm := range rm.Goals {
		for _, g := range gm.Gates {
			if g.Status == records.GateOpen {
				gates = append(gates, g.ID)
			}
		}
		ts, err := rm.Todos(goal)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if t.Status != records.TodoDone && t.Status != records.TodoCancelled {
				todos = append(todos, t.ID)
			}
		}
	}
	slices.Sort(todos)
	slices.Sort(gates)
	return slices.Compact(todos), slices.Compact(gates)
}
