package scheduling

import "strconv"

// Shard is the 0-based shard, among shards, of the destination called name: the shard whose
// name ("shard-0", "shard-1", ...) wins name's rendezvous (Choose, with name as the key). The
// answer is the same on every machine and spreads names evenly; going from N shards to N+1
// moves only the names the new shard wins (about 1/(N+1) of them), and every one of them to
// the new shard, so that N workspaces can each manage one shard of a fleet and a new workspace
// takes over only what it must. shards below 1 count as 1.
func Shard(name string, shards int) int {
	best, bestWeight := 0, uint64(0)
	for i := 0; i < max(shards, 1); i++ {
		if w := weight(name, ShardName(i)); i == 0 || w > bestWeight {
			best, bestWeight = i, w
		}
	}
	return best
}

// ShardName is the candidate name of shard i in Shard's rendezvous.
func ShardName(i int) string { return "shard-" + strconv.Itoa(i) }
