package kernel

import "github.com/loopx-dev/loopx/internal/buntdb"

type bunTx = buntdb.Tx
