//go:build !unix

package regularfile

// nonBlock is zero where FIFOs cannot be made by name.
const nonBlock = 0
