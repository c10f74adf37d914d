package kernel

import "github.com/tidwall/buntdb"

type bunTx = buntdb.Tx
