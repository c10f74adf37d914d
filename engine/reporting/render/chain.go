package render

import (
	"fmt"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// ChainProblem says what a chain report found wrong, in one line: the
// first bad transaction and why.
func ChainProblem(c records.ChainReport) string {
	if c.FirstBad != nil {
		return fmt.Sprintf("first bad transaction %d: %s", *c.FirstBad, c.Problem)
	}
	return c.Problem
}

// ChainLine is what the chain verification found (ChainProblem), or "chain verified: revisions B–H (N transactions), anchored".
func ChainLine(c records.ChainReport) string {
	if !c.OK() {
		return ChainProblem(c)
	}
	blocks := "blocks"
	if c.Transactions == 1 {
		blocks = "block"
	}
	return fmt.Sprintf("chain verified: revisions %d–%d (%d %s), head %s anchored", c.Base, c.Head, c.Transactions, blocks, kernel.ShortHash(c.HeadHash))
}
