package layout

// TEMPORARY stand-in, replaced by the full implementation.

// Folder is a destination's folder in a store location.
type Folder struct{ Location, Root string }

// Overlap is a pair of folders that are equal or nested.
type Overlap struct {
	I, J  int
	Equal bool
}

// FindOverlaps lists the pairs of folders that are equal or nested.
func FindOverlaps(folders []Folder) []Overlap {
	var out []Overlap
	for j := range folders {
		for i := 0; i < j; i++ {
			if Overlaps(folders[i], folders[j]) {
				out = append(out, Overlap{I: i, J: j, Equal: folders[i].Root == folders[j].Root})
			}
		}
	}
	return out
}

// Overlaps reports whether two folders are equal or one is inside the other.
func Overlaps(a, b Folder) bool {
	if a.Location != b.Location {
		return false
	}
	if a.Root == b.Root || a.Root == "" || b.Root == "" {
		return true
	}
	return len(a.Root) < len(b.Root) && b.Root[:len(a.Root)+1] == a.Root+"/" ||
		len(b.Root) < len(a.Root) && a.Root[:len(b.Root)+1] == b.Root+"/"
}
