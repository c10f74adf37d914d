package kernel

// SchemaVersion is the version of the values this package writes. A store
// written by a newer loopx is refused with ErrSchemaTooNew.
const SchemaVersion = 2
