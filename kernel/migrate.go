package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Migration is what Open did to bring an older store to SchemaVersion:
// the schema found, the one written, the backup taken first (a file name
// in the state directory) and what each step did.
type Migration struct {
	From   int      `json:"from"`
	To     int      `json:"to"`
	Backup string   `json:"backup"`
	Steps  []string `json:"steps"`
}

// migration is one step of the list Open runs on an older store, in
// order: every step whose To is above the store's schema runs. Steps that
// bring the store to the same version share its number (one migration per
// release, however many parts it has).
type migration struct {
	To   int
	Name string
	// Run changes the store (under the lock, before any Update) and says
	// what it did in one line.
	Run func(s *Store) (string, error)
}

// migrations is the list, oldest first.
var migrations = []migration{
	{To: 2, Name: "audit events move from state.db to " + EventsFile, Run: migrateEventsToLog},
	// Last: every step before it reads and writes payloads as they were.
	{To: 2, Name: "every record carries a checksum and the chain starts with a genesis block", Run: migrateChain},
}

// MigrationBackup is the copy of state.db Open keeps before migrating a
// store written with schema N (state.db.vN.bak).
func MigrationBackup(from int) string { return fmt.Sprintf("%s.v%d.bak", DBFile, from) }

// stampOrMigrate writes the schema version of a new store (found 0), and
// migrates a store with an older one: state.db is first copied to
// MigrationBackup(found), then every step of migrations above found runs,
// then the version is written and the file shrunk. Open audits it
// (store.migrated) once the store is open.
func (s *Store) stampOrMigrate(found int) error {
	if found == SchemaVersion {
		return nil
	}
	if found == 0 {
		return s.setSchema()
	}
	m := &Migration{From: found, To: SchemaVersion, Backup: MigrationBackup(found)}
	// A backup left by an interrupted migration is the store before it: keep it.
	if _, err := os.Stat(filepath.Join(s.dir, m.Backup)); errors.Is(err, os.ErrNotExist) {
		if err := s.backupTo(m.Backup); err != nil {
			return StoreError(s.Path(), fmt.Errorf("backup before migrating from schema %d: %w", found, err))
		}
	}
	for _, step := range migrations {
		if step.To <= found {
			continue
		}
		did, err := step.Run(s)
		if err != nil {
			return StoreError(s.Path(), fmt.Errorf("migrating from schema %d (%s; the store is unchanged, backup in %s): %w", found, step.Name, m.Backup, err))
		}
		m.Steps = append(m.Steps, did)
	}
	if err := s.setSchema(); err != nil {
		return StoreError(s.Path(), err)
	}
	if err := s.shrinkFile(); err != nil {
		return StoreError(s.Path(), err)
	}
	s.migrated = m
	return nil
}

func (s *Store) setSchema() error {
	return s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(keySchema, strconv.Itoa(SchemaVersion), nil)
		return err
	})
}

// auditMigration records the migration Open ran as a store.migrated event.
func (s *Store) auditMigration() error {
	m := *s.migrated
	return s.Update(func(tx *Tx) error {
		return tx.AppendEvent(records.Event{Kind: "store.migrated", Actor: "loopx", Subject: DBFile,
			Message: fmt.Sprintf("migrated the store from schema %d to %d (backup: %s): %s", m.From, m.To, m.Backup, strings.Join(m.Steps, "; ")),
			Data:    map[string]any{"from": m.From, "to": m.To, "backup": m.Backup}})
	})
}

// Migrated reports the migration this Open ran (nil when none).
func (s *Store) Migrated() *Migration { return s.migrated }

// migrateEventsToLog moves the audit events of a schema-1 store (keys
// event:<seq>) to the event log: the log is written whole to a temporary
// file, fsynced and renamed into place, and only then are the keys deleted
// in one buntdb transaction that also records the log's head as the
// journal's. A crash before that transaction leaves the schema-1 store as
// it was, and the next open migrates it again (overwriting the log it
// wrote, which no commit has recorded yet).
func migrateEventsToLog(s *Store) (string, error) {
	// Done already, by a migration interrupted before the schema was
	// written: the journal holds the log's head.
	if j, err := s.readJournal(); err != nil {
		return "", err
	} else if j != nil && j.LogTo != nil {
		if _, err := s.recoverLog(j, false); err != nil {
			return "", err
		}
		return fmt.Sprintf("audit events already in %s (%d records)", EventsFile, s.head.Records), nil
	}
	var evs []records.Event
	var keys []string
	var rev uint64
	err := s.db.View(func(btx *buntdb.Tx) error {
		if v, err := btx.Get(keyRev); err == nil {
			rev, _ = strconv.ParseUint(v, 10, 64)
		}
		var derr error
		err := btx.AscendGreaterOrEqual("", "event:", func(k, v string) bool {
			if !strings.HasPrefix(k, "event:") {
				return false
			}
			var ev records.Event
			if err := json.Unmarshal([]byte(v), &ev); err != nil {
				derr = fmt.Errorf("decoding %s: %w", k, err)
				return false
			}
			evs, keys = append(evs, ev), append(keys, k)
			return true
		})
		if err != nil {
			return err
		}
		return derr
	})
	if err != nil {
		return "", err
	}
	lines, head, err := appendRecords(LogHead{}, 0, evs)
	if err != nil {
		return "", err
	}
	if err := replaceFile(s.dir, EventsFile, func(w io.Writer) error {
		_, err := w.Write(lines)
		return err
	}, nil); err != nil {
		return "", err
	}
	j, err := json.Marshal(journal{Rev: rev, Sets: [][2]string{}, LogFrom: &head, LogTo: &head})
	if err != nil {
		return "", err
	}
	if err := s.db.Update(func(btx *buntdb.Tx) error {
		for _, k := range keys {
			if _, err := btx.Delete(k); err != nil {
				return err
			}
		}
		_, _, err := btx.Set(keyJournal, string(j), nil)
		return err
	}); err != nil {
		return "", err
	}
	s.head = head
	return fmt.Sprintf("%d audit %s moved to %s", len(evs), plural(len(evs), "event", "events"), EventsFile), nil
}

// backupTo copies the store file to name in the state directory
// atomically (temp file, fsync, rename; following no link).
func (s *Store) backupTo(name string) error {
	return copyFileAtomic(s.Path(), s.dir, name)
}

// plural picks one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// migrateChain (schema 2) wraps every value with its checksum (chain.go),
// stamps the schema (the genesis block's digest covers it) and writes the
// genesis block at the store's revision, carrying the event log's head.
func migrateChain(s *Store) (string, error) {
	n, rev := 0, uint64(0)
	err := s.db.Update(func(tx *buntdb.Tx) error {
		log := s.head
		if raw, err := tx.Get(keyJournal); err == nil {
			var j journal
			if json.Unmarshal([]byte(raw), &j) == nil && j.LogTo != nil {
				log = *j.LogTo
			}
		}
		var keys, vals []string
		if err := tx.Ascend("", func(k, v string) bool {
			keys, vals = append(keys, k), append(vals, v)
			return true
		}); err != nil {
			return err
		}
		for i, k := range keys {
			if keyChecked(k) {
				if _, _, err := tx.Set(k, wrap(k, vals[i]), nil); err != nil {
					return err
				}
				n++
			}
		}
		if _, _, err := tx.Set(keySchema, strconv.Itoa(SchemaVersion), nil); err != nil {
			return err
		}
		if v, err := tx.Get(keyRev); err == nil {
			if rev, err = strconv.ParseUint(payloadOf(keyRev, v), 10, 64); err != nil {
				return fmt.Errorf("record %s: %w", keyRev, err)
			}
		}
		return putGenesis(tx, rev, log)
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d records carry a checksum; the chain starts at revision %d", n, rev), nil
}
