package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Reading the store file itself, transaction by transaction, without
// buntdb: buntdb refuses a file damaged in the middle ("invalid database")
// and silently skips NUL bytes, so `loopx doctor` and `--salvage` read the
// append-only file's RESP commands here, note every region that is not one,
// and follow the chain's blocks (chain.go) through it.

// aofCmd is one command of the append-only file.
type aofCmd struct {
	off      int64
	op       string // "set", "del" or "flushdb"
	key, val string
}

type aofScan struct {
	cmds    []aofCmd
	damaged []records.Region
}

// scanAOF reads every command of an append-only file it can, and the
// regions between them that are not commands. It never fails and never
// panics: damage is data.
func scanAOF(b []byte) aofScan {
	var sc aofScan
	p := 0
	for p < len(b) {
		if b[p] == 0 {
			q := p
			for q < len(b) && b[q] == 0 {
				q++
			}
			sc.damaged = append(sc.damaged, records.Region{Offset: int64(p), Length: int64(q - p)})
			p = q
			continue
		}
		if c, n, ok := parseCmd(b[p:]); ok {
			c.off = int64(p)
			sc.cmds = append(sc.cmds, c)
			p += n
			continue
		}
		q := resync(b, p+1)
		sc.damaged = append(sc.damaged, records.Region{Offset: int64(p), Length: int64(q - p)})
		p = q
	}
	return sc
}

// resync returns the first offset at or after p where a command parses
// (len(b) when none does).
func resync(b []byte, p int) int {
	for p < len(b) {
		i := bytes.IndexByte(b[p:], '*')
		if i < 0 {
			return len(b)
		}
		p += i
		if _, _, ok := parseCmd(b[p:]); ok {
			return p
		}
		p++
	}
	return len(b)
}

// parseCmd parses one RESP command at the start of b: its length in bytes.
func parseCmd(b []byte) (aofCmd, int, bool) {
	var c aofCmd
	n, p, ok := respNumber(b, '*')
	if !ok || n < 1 || n > 5 {
		return c, 0, false
	}
	parts := make([]string, 0, n)
	for range n {
		l, q, ok := respNumber(b[p:], '$')
		if !ok {
			return c, 0, false
		}
		p += q
		if l < 0 || l > len(b)-p-2 || b[p+l] != '\r' || b[p+l+1] != '\n' {
			return c, 0, false
		}
		parts = append(parts, string(b[p:p+l]))
		p += l + 2
	}
	switch op := toLower(parts[0]); {
	case op == "set" && (n == 3 || n == 5):
		c.op, c.key, c.val = op, parts[1], parts[2]
	case op == "del" && n == 2:
		c.op, c.key = op, parts[1]
	case op == "flushdb" && n == 1:
		c.op = op
	default:
		return c, 0, false
	}
	return c, p, true
}

// respNumber parses "<prefix><digits>\r\n" at the start of b.
func respNumber(b []byte, prefix byte) (int, int, bool) {
	if len(b) < 4 || b[0] != prefix {
		return 0, 0, false
	}
	i := bytes.Index(b, []byte("\r\n"))
	if i < 2 || i > 12 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(string(b[1:i]))
	if err != nil {
		return 0, 0, false
	}
	return n, i + 2, true
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// blocksOf returns the blocks that decode and check, in file order.
func blocksOf(cmds []aofCmd) []journal {
	var out []journal
	for _, c := range cmds {
		if c.op == "set" && c.key == keyJournal {
			if b, err := decodeBlock(c.val); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// chainWalk is a verified walk of a store file.
type chainWalk struct {
	report records.ChainReport
	// records are the stored records at report.Head, rebuilt from the
	// base and the blocks (salvage writes them).
	records map[string]string
	head    journal
}

// walkChain verifies the chain in the store file's bytes raw against the
// anchor a (nil when none).
func walkChain(path string, raw []byte, a *records.Anchor) chainWalk {
	sc := scanAOF(raw)
	w := &chainWalker{r: records.ChainReport{Store: path, Anchor: a, Damaged: append([]records.Region{}, sc.damaged...)}, actual: map[string]string{}}
	for _, c := range sc.cmds {
		w.replay(c)
	}
	if len(w.blocks) == 0 {
		w.r.Problem = "no chain block in the store file (emptied, zero-filled or not a loopx store)"
		if a != nil {
			v := uint64(0)
			w.r.FirstBad = &v
		}
		return chainWalk{report: w.r}
	}
	if w.derived == nil {
		w.baseOK = w.establishBase()
	} else if !w.broken {
		w.checkApplied(w.blocks[len(w.blocks)-1])
	}
	head := w.blocks[len(w.blocks)-1]
	w.r.Base, w.r.Head, w.r.HeadHash, w.r.Transactions = w.blocks[0].Rev, head.Rev, head.Hash, len(w.blocks)
	w.r.Salvageable = w.baseOK
	w.placeDamage(sc.damaged)
	w.checkLive(head)
	if a != nil {
		w.checkAnchor(*a, head)
	}
	return chainWalk{report: w.r, records: w.derived, head: head}
}

// chainWalker replays a store file's commands in order, holding each
// chain block against the one before it and the records against the
// blocks.
type chainWalker struct {
	r records.ChainReport
	// actual are the records as the file's commands left them; derived
	// the records the verified blocks lead to from the base (nil until the
	// base is established), and d their digest.
	actual, derived map[string]string
	d               digest
	// blocks are the verified blocks, offsets where each is in the file.
	blocks  []journal
	offsets []int64
	// broken: a block did not verify, so the walk verifies no more;
	// baseOK: the base's records match its block.
	broken, baseOK bool
}

// bad records that transaction rev does not verify, for msg, unless an
// earlier one already does not.
func (w *chainWalker) bad(rev uint64, msg string) {
	if w.r.FirstBad == nil || rev < *w.r.FirstBad {
		v := rev
		w.r.FirstBad, w.r.Problem = &v, msg
	}
}

// replay applies one command of the file, checking a chain block first
// (verify).
func (w *chainWalker) replay(c aofCmd) {
	switch c.op {
	case "flushdb":
		w.actual = map[string]string{}
		return
	case "del":
		delete(w.actual, c.key)
		return
	}
	if c.key == keyJournal && !w.broken {
		w.verify(c)
	}
	if c.op == "set" {
		w.actual[c.key] = c.val
	}
}

// verify checks the chain block that c writes: the first is the base; a
// repeat of the last is the journal's second write (without the events
// it carried); any other must follow the last (follow). A block that does
// not decode breaks the walk.
func (w *chainWalker) verify(c aofCmd) {
	b, err := decodeBlock(c.val)
	next := uint64(0)
	if len(w.blocks) > 0 {
		next = w.blocks[len(w.blocks)-1].Rev + 1
	}
	switch {
	case err != nil:
		w.bad(next, fmt.Sprintf("transaction %d: %v (at byte %d)", next, err, c.off))
		w.broken = true
	case len(w.blocks) > 0 && b.Hash == w.blocks[len(w.blocks)-1].Hash:
	case len(w.blocks) == 0:
		w.blocks, w.offsets = append(w.blocks, b), append(w.offsets, c.off)
	default:
		w.follow(b, c.off)
	}
}

// follow checks block b, at byte off, against the last verified block:
// the last one's records are in the file (or, after the base, the base is
// established), b links to it by hash and revision, and its change set
// leads from the last state to the state b records. A block that does not
// breaks the walk.
func (w *chainWalker) follow(b journal, off int64) {
	last := w.blocks[len(w.blocks)-1]
	if len(w.blocks) == 1 && w.derived == nil {
		if w.baseOK = w.establishBase(); !w.baseOK {
			w.broken = true
			return
		}
	} else {
		w.checkApplied(last)
	}
	if b.Prev != last.Hash || b.Rev != last.Rev+1 {
		w.bad(last.Rev+1, fmt.Sprintf("transaction %d is missing: the next block in the file (revision %d, at byte %d) does not follow revision %d", last.Rev+1, b.Rev, off, last.Rev))
		w.broken = true
		return
	}
	nd := w.d
	for _, kv := range b.Sets {
		if !keyInState(kv[0]) {
			continue
		}
		if old, ok := w.derived[kv[0]]; ok {
			if _, s, err := unwrap(kv[0], old); err == nil {
				nd.sub(s)
			}
		}
		if _, s, err := unwrap(kv[0], kv[1]); err == nil {
			nd.add(s)
		} else {
			nd = digest{} // cannot match
		}
	}
	if nd.String() != b.State {
		w.bad(b.Rev, fmt.Sprintf("transaction %d: its change set does not lead to its recorded state", b.Rev))
		w.broken = true
		return
	}
	w.d = nd
	for _, kv := range b.Sets {
		w.derived[kv[0]] = kv[1]
	}
	w.blocks, w.offsets = append(w.blocks, b), append(w.offsets, off)
}

// establishBase fixes the base records once the base block's own records
// are all read (at the next block, or at the end): they must match the
// state the base block records. It reports whether they do.
func (w *chainWalker) establishBase() bool {
	base := w.blocks[0]
	w.derived = map[string]string{}
	for k, v := range w.actual {
		if k != keyJournal {
			w.derived[k] = v
		}
	}
	var err error
	if w.d, err = stateOf(w.derived); err != nil {
		w.bad(base.Rev, fmt.Sprintf("the base (revision %d): %v", base.Rev, err))
		return false
	}
	if w.d.String() != base.State {
		w.bad(base.Rev, fmt.Sprintf("the base records do not match the block of revision %d", base.Rev))
		return false
	}
	return true
}

// checkApplied checks that the file holds the records block b set.
func (w *chainWalker) checkApplied(b journal) {
	for _, kv := range b.Sets {
		if w.actual[kv[0]] != kv[1] {
			w.bad(b.Rev, fmt.Sprintf("transaction %d: record %s differs from its block (damaged or changed in the file)", b.Rev, kv[0]))
			return
		}
	}
}

// placeDamage gives each damaged region of the file to the transaction
// whose block precedes it; damage before the first block makes the base
// unsalvageable.
func (w *chainWalker) placeDamage(damaged []records.Region) {
	for _, reg := range damaged {
		i := sort.Search(len(w.offsets), func(i int) bool { return w.offsets[i] > reg.Offset }) - 1
		if i < 0 {
			w.bad(w.blocks[0].Rev, fmt.Sprintf("the base (revision %d) is damaged at bytes %d–%d", w.blocks[0].Rev, reg.Offset, reg.Offset+reg.Length))
			w.r.Salvageable = false
			continue
		}
		if i+1 < len(w.blocks) || !w.broken {
			w.bad(w.blocks[i].Rev, fmt.Sprintf("transaction %d is damaged at bytes %d–%d", w.blocks[i].Rev, reg.Offset, reg.Offset+reg.Length))
		}
	}
}

// checkLive checks, when the chain verified so far, that the live records
// are exactly the head's.
func (w *chainWalker) checkLive(head journal) {
	if w.r.FirstBad != nil || !w.baseOK {
		return
	}
	live := map[string]string{}
	for k, v := range w.actual {
		if k != keyJournal {
			live[k] = v
		}
	}
	if ld, err := stateOf(live); err != nil || ld != w.d {
		msg := "records after the last transaction do not match the chain head"
		if err != nil {
			msg = err.Error()
		}
		w.bad(head.Rev, fmt.Sprintf("transaction %d: %s", head.Rev, msg))
	}
}

// checkAnchor holds the verified chain against the anchor a: its head must
// be a block of the file's chain, at or after the base.
func (w *chainWalker) checkAnchor(a records.Anchor, head journal) {
	switch {
	case a.Rev > head.Rev:
		w.bad(head.Rev+1, fmt.Sprintf("the file's verifiable chain stops at revision %d; the anchor's head is revision %d (%s)", head.Rev, a.Rev, ShortHash(a.Hash)))
	case a.Rev < w.blocks[0].Rev:
		if w.r.Problem == "" {
			w.r.Problem = fmt.Sprintf("the anchor's head (revision %d) is older than the file's base (revision %d)", a.Rev, w.blocks[0].Rev)
		}
	default:
		b := w.blocks[a.Rev-w.blocks[0].Rev]
		if b.Hash != a.Hash {
			w.bad(a.Rev, fmt.Sprintf("transaction %d is off the anchor's chain (%s, anchored %s)", a.Rev, ShortHash(b.Hash), ShortHash(a.Hash)))
		}
	}
}

// VerifyChain verifies the whole chain of the open store's file against
// its anchor (the store holds the lock, so nothing commits meanwhile).
// Errors: the file or the anchor cannot be read.
func (s *Store) VerifyChain() (records.ChainReport, error) {
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		return records.ChainReport{}, err
	}
	a, ok, err := ReadAnchor(s.anchorDir)
	if err != nil {
		return records.ChainReport{}, err
	}
	var ap *records.Anchor
	if ok {
		ap = &a
	}
	return walkChain(s.Path(), raw, ap).report, nil
}

// VerifyChainAt is VerifyChain for a store that may not open: it takes the
// lock of dir, reads dir/state.db and the anchor, and releases the lock.
// Errors: ErrLockTimeout; the file or anchor cannot be read.
func VerifyChainAt(dir string, o Options) (records.ChainReport, error) {
	lk, err := lockDir(dir, o)
	if err != nil {
		return records.ChainReport{}, err
	}
	defer lk.Unlock()
	path := filepath.Join(dir, DBFile)
	adir := o.AnchorDir
	if adir == "" {
		if adir, err = AnchorDirOf(dir); err != nil {
			return records.ChainReport{}, err
		}
	}
	var ap *records.Anchor
	if a, ok, err := ReadAnchor(adir); err != nil {
		return records.ChainReport{}, err
	} else if ok {
		ap = &a
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		r := records.ChainReport{Store: path, Anchor: ap, Damaged: []records.Region{}, Problem: "state.db is missing"}
		if ap != nil {
			v := uint64(0)
			r.FirstBad = &v
		}
		return r, nil
	}
	if err != nil {
		return records.ChainReport{}, err
	}
	return walkChain(path, raw, ap).report, nil
}

// BackupBeforeSalvage is the copy of the damaged store kept by Salvage.
const BackupBeforeSalvage = "state.db.damaged"

// Salvage rebuilds the store in dir from every transaction of its file
// that verifies (the base and each block linked to it, their records taken
// from the blocks, so records damaged in the file are restored), after
// copying the damaged file to state.db.damaged. The salvaged store is
// anchored (its head replaces the anchor's) and the salvage audited as a
// store.salvaged event with the refusals logged meanwhile. It is `loopx
// doctor --salvage`, a human's decision. Errors: ErrLockTimeout; the base
// itself does not verify (nothing to build on: restore state.db.bak or a
// backup); I/O errors (the damaged file stays in place).
func Salvage(dir string, o Options) (records.SalvageReport, error) {
	var rep records.SalvageReport
	if o.Now == nil {
		o.Now = time.Now
	}
	lk, err := lockDir(dir, o)
	if err != nil {
		return rep, err
	}
	defer lk.Unlock()
	path := filepath.Join(dir, DBFile)
	adir := o.AnchorDir
	if adir == "" {
		if adir, err = AnchorDirOf(dir); err != nil {
			return rep, err
		}
		o.AnchorDir = adir
	}
	var ap *records.Anchor
	if a, ok, err := ReadAnchor(adir); err == nil && ok {
		ap = &a
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return rep, StoreError(path, err)
	}
	w := walkChain(path, raw, ap)
	rep.Chain = w.report
	if !w.report.Salvageable {
		return rep, StoreError(path, fmt.Errorf("nothing verifiable to salvage: %s; restore %s or a backup", w.report.Problem, BackupFile))
	}
	rep.Kept = w.head.Rev
	if ap != nil && ap.Rev > w.head.Rev {
		rep.Dropped = ap.Rev - w.head.Rev
	}
	rep.Backup = filepath.Join(dir, BackupBeforeSalvage)
	if err := copyFileAtomic(path, dir, BackupBeforeSalvage); err != nil {
		return rep, StoreError(path, fmt.Errorf("backup before salvage: %w", err))
	}
	// The salvaged records are written by a buntdb of its own into a temp
	// file made without following a link (a link at a fixed temp name
	// would be written through), then renamed over state.db.
	head, _ := jsonString(w.head.durable())
	err = replaceFile(dir, DBFile, func(out io.Writer) error {
		db, err := buntdb.Open(":memory:")
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.Update(func(tx *buntdb.Tx) error {
			for k, v := range w.records {
				if _, _, err := tx.Set(k, v, nil); err != nil {
					return err
				}
			}
			_, _, err := tx.Set(keyJournal, head, nil)
			return err
		}); err != nil {
			return err
		}
		return db.Save(out)
	}, nil)
	if err != nil {
		return rep, StoreError(path, err)
	}
	o.AcceptRollback = true
	s, err := openLocked(dir, o)
	if err != nil {
		return rep, err
	}
	defer s.Close()
	msg := fmt.Sprintf("salvaged the store at revision %d (%s) from its verifiable transactions", w.head.Rev, ShortHash(w.head.Hash))
	if w.report.FirstBad != nil {
		msg += fmt.Sprintf("; the first bad transaction was %d: %s", *w.report.FirstBad, w.report.Problem)
	}
	if rep.Dropped > 0 {
		msg += fmt.Sprintf("; %d transaction(s) after it are lost (the anchor was at revision %d)", rep.Dropped, ap.Rev)
	}
	msg += "; the damaged file is " + BackupBeforeSalvage
	err = s.Update(func(tx *Tx) error {
		return tx.AppendEvent(records.Event{Kind: "store.salvaged", Actor: "human", Message: msg,
			Data: map[string]any{"kept": rep.Kept, "dropped": rep.Dropped, "backup": BackupBeforeSalvage}})
	})
	return rep, err
}
