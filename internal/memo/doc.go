// Package memo remembers what one provider process computes again and again: the SHA-256 keys
// of large texts, and the MD5 sums of large contents, which one plan of a fleet asks for once per
// destination. Everything here is kept in memory, bounded, and exact: a hit gives what computing
// again would give. Its subpackage sealed keeps results between processes, on disk.
//
// The memos are the only code of the provider that uses package unsafe: a text or a slice is
// recognised by where its bytes are, which saves hashing it again, and an entry holds the text
// or is dropped with the computation that owns it, so that the address cannot be reused by
// other bytes while the entry stands.
package memo
