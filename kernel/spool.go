package kernel

// keySpoolImported records which spool files (by name and content hash) the
// engine has imported into the store, so that an import committed just
// before a crash is never imported twice (engine/spool.go).
const keySpoolImported = "meta:spool_imported"

// SpoolImported returns the spool files whose lines are already in the
// store: file name → sha256 of its content (hex). Empty when none.
func (tx *Tx) SpoolImported() (map[string]string, error) {
	m := map[string]string{}
	if _, err := tx.getJSON(keySpoolImported, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// SetSpoolImported records m (see SpoolImported) in this transaction, so
// that it commits together with the events imported from those files.
func (tx *Tx) SetSpoolImported(m map[string]string) error {
	return tx.putJSON(keySpoolImported, m)
}
