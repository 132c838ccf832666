package manifest

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// The canonical form written without the YAML library's emitter.
//
// encodeOne builds the library's node tree of a document and has its encoder write it; for a
// release of CustomResourceDefinitions that is most of the time spent reading a text (the
// encoder keeps every event of a document and allocates forty times the size of what it writes).
// Documents hold only what the parse gives (mappings with string keys, sequences, strings,
// booleans, null and untagged numbers), so this writer produces the same bytes directly, by the
// rules the library follows for them with an indentation of 2, sequences not indented under
// their key, and no line wrapping:
//
//   - a mapping writes `key: value` lines in key order, a nested mapping two spaces further, a
//     sequence at its key's column (`- item`), a collection in a sequence item beginning on the
//     dash's line; an empty mapping or sequence is `{}` or `[]`;
//   - a string the library would read back as something else (null, a boolean, a number, a
//     timestamp) or that node() marks (YAML 1.1 words, `<<`) is double-quoted;
//   - a string of several lines is a literal block (`|`, with `-` when it does not end with a line
//     break and an indentation digit when it begins with a space), unless it has a space before a
//     line break or at its end, when it is double-quoted;
//   - otherwise a string is plain when the library's analysis allows it in block context (no
//     indicator at its start, no `: ` or ` #`, no space at either end, no `---` or `...` at its
//     start), single-quoted when it can be, and double-quoted with escapes.
//
// What it is not sure to write as the library does makes it give up on the whole document, which
// the library then writes: tabs and other control characters, characters outside the Basic
// Multilingual Plane and the line and paragraph separators, a literal block whose chomping keeps
// trailing blank lines, keys of several lines or over 128 bytes. TestEmitMatchesLibrary compares
// both on every document of the fixtures and on random documents built from awkward strings.

// emitDocument is a document's canonical form, and false when the library must write it.
func emitDocument(d Document) ([]byte, bool) {
	m := d.Object
	e := emitter{buf: make([]byte, 0, 4096)}
	if len(m) == 0 {
		return []byte("{}\n"), true
	}
	if !e.mapping(m, 0, false) {
		return nil, false
	}
	return e.buf, true
}

type emitter struct{ buf []byte }

func (e *emitter) spaces(n int) {
	for range n {
		e.buf = append(e.buf, ' ')
	}
}

// mapping writes m's entries at column indent; inline when the first begins on the current line
// (after a sequence item's dash).
func (e *emitter) mapping(m map[string]any, indent int, inline bool) bool {
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 || !inline {
			e.spaces(indent)
		}
		if !e.key(k) {
			return false
		}
		e.buf = append(e.buf, ':')
		if !e.value(m[k], indent, true) {
			return false
		}
	}
	return true
}

// sequence writes s's items as `- item` at column indent; inline as for mapping.
func (e *emitter) sequence(s []any, indent int, inline bool) bool {
	for i, item := range s {
		if i > 0 || !inline {
			e.spaces(indent)
		}
		e.buf = append(e.buf, '-', ' ')
		if !e.value(item, indent, false) {
			return false
		}
	}
	return true
}

// value writes v after a key's colon (afterKey) or after a sequence item's dash, both at column
// indent: a mapping's entries go two columns further (after a dash, the first on the dash's
// line), a sequence's items at the key's column or, after a dash, two further; an empty
// collection is written in flow style on the same line.
func (e *emitter) value(v any, indent int, afterKey bool) bool {
	m, isMap := v.(map[string]any)
	s, isSeq := v.([]any)
	switch {
	case isMap && len(m) > 0 && afterKey:
		e.buf = append(e.buf, '\n')
		return e.mapping(m, indent+2, false)
	case isMap && len(m) > 0:
		return e.mapping(m, indent+2, true)
	case isSeq && len(s) > 0 && afterKey:
		e.buf = append(e.buf, '\n')
		return e.sequence(s, indent, false)
	case isSeq && len(s) > 0:
		return e.sequence(s, indent+2, true)
	}
	if afterKey {
		e.buf = append(e.buf, ' ')
	}
	switch {
	case isMap:
		e.buf = append(e.buf, "{}\n"...)
		return true
	case isSeq:
		e.buf = append(e.buf, "[]\n"...)
		return true
	}
	return e.scalar(v, indent+2)
}

// scalar writes a value and its line's end; a literal block's lines go at column indent.
func (e *emitter) scalar(v any, indent int) bool {
	switch v := v.(type) {
	case string:
		return e.str(v, indent)
	case bool:
		if v {
			e.buf = append(e.buf, "true\n"...)
		} else {
			e.buf = append(e.buf, "false\n"...)
		}
		return true
	case nil:
		e.buf = append(e.buf, "null\n"...)
		return true
	case Scalar:
		// Untagged: the library writes the text plain when its analysis allows.
		if a := analyse(v.Text); a.ok && a.plain {
			e.buf = append(append(e.buf, v.Text...), '\n')
			return true
		}
	}
	return false
}

// key writes a mapping key: as a value, but never as a block, and within the library's limit
// for a key on one line.
func (e *emitter) key(k string) bool {
	if len(k) > 128 || strings.ContainsRune(k, '\n') {
		return false
	}
	a := analyse(k)
	if !a.ok {
		return false
	}
	switch {
	case quotedByNode(k) || !readsAsString(k):
		e.doubleQuoted(k)
	case a.plain:
		e.buf = append(e.buf, k...)
	case a.single:
		e.singleQuoted(k)
	default:
		e.doubleQuoted(k)
	}
	return true
}

func (e *emitter) str(s string, indent int) bool {
	a := analyse(s)
	if !a.ok {
		return false
	}
	switch {
	case strings.ContainsRune(s, '\n'):
		if !a.block {
			e.doubleQuoted(s)
			break
		}
		return e.literal(s, indent)
	case quotedByNode(s) || !readsAsString(s):
		e.doubleQuoted(s)
	case a.plain:
		e.buf = append(e.buf, s...)
	case a.single:
		e.singleQuoted(s)
	default:
		e.doubleQuoted(s)
	}
	e.buf = append(e.buf, '\n')
	return true
}

// quotedByNode: the strings stringNode marks double-quoted (it leaves those of several lines).
func quotedByNode(s string) bool { return s == "<<" || yaml11NonString(s) }

// literal writes a block of several lines at column indent.
func (e *emitter) literal(s string, indent int) bool {
	e.buf = append(e.buf, '|')
	if s[0] == ' ' || s[0] == '\n' {
		e.buf = append(e.buf, '2')
	}
	switch {
	case !strings.HasSuffix(s, "\n"):
		e.buf = append(e.buf, '-')
	case s == "\n" || strings.HasSuffix(s, "\n\n"):
		return false // kept trailing breaks: the library also ends the document open
	}
	e.buf = append(e.buf, '\n')
	for line := range strings.Lines(s) {
		text := strings.TrimSuffix(line, "\n")
		if text != "" {
			e.spaces(indent)
			e.buf = append(e.buf, text...)
		}
		e.buf = append(e.buf, '\n')
	}
	return true
}

func (e *emitter) singleQuoted(s string) {
	e.buf = append(e.buf, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			e.buf = append(e.buf, '\'')
		}
		e.buf = append(e.buf, s[i])
	}
	e.buf = append(e.buf, '\'')
}

// doubleQuoted writes s in double quotes; analyse let through no character the library escapes
// but these three.
func (e *emitter) doubleQuoted(s string) {
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			e.buf = append(e.buf, '\\', c)
		case '\n':
			e.buf = append(e.buf, '\\', 'n')
		default:
			e.buf = append(e.buf, c)
		}
	}
	e.buf = append(e.buf, '"')
}

// readsAsString reports whether the library reads s, written plain, back as a string; when it
// would not, it writes s double-quoted. Only the null and boolean words among the texts starting
// with a letter of "yYnNtTfFoO~"; texts starting with a sign, a digit or a dot may be numbers or
// timestamps by rules of the library's own, so the library is asked.
func readsAsString(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || c == '.' || '0' <= c && c <= '9':
		return libraryWritesUnquoted(s)
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch s {
		case "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
			return false
		}
	}
	return true
}

// libraryWritesUnquoted: the library writes the one-line string s plain or single-quoted, not in
// the double quotes it uses for a string that would read back as another type (analyse says
// whether double quotes come from its characters instead).
func libraryWritesUnquoted(s string) bool {
	out := encodeLibrary(Document{Object: map[string]any{"k": s}})
	return !strings.HasPrefix(string(out), `k: "`)
}

// analysis is what the library's scalar analysis concludes for block context.
type analysis struct {
	ok     bool // only characters this writer writes as the library does
	plain  bool // may be written plain
	single bool // may be written single-quoted
	block  bool // may be written as a literal block
}

// analyse reads s as the library's emitter does before choosing a style. Characters it would
// escape or treat as line breaks other than '\n' make ok false. (The library also refuses plain
// and single quotes to a space after a line break; a string with a line break is never written
// either way here, so that rule is left out.)
func analyse(s string) analysis {
	if s == "" {
		return analysis{ok: true, plain: true, single: true}
	}
	var (
		indicators                             = strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...")
		lineBreaks, leadingSpace, leadingBreak bool
		trailingSpace, trailingBreak           bool
		spaceBreak                             bool
		precededByWhitespace, prevSpace        = true, false
	)
	for i := 0; i < len(s); {
		c := s[i]
		w := 1
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !printableBMP(r, size) {
				return analysis{}
			}
			w = size
		} else if c != '\n' && (c < 0x20 || c > 0x7E) {
			return analysis{} // tabs and control characters
		}
		followedByWhitespace := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t'
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				indicators = true
			case '?', ':', '-':
				if followedByWhitespace {
					indicators = true
				}
			}
		} else {
			switch c {
			case ':':
				if followedByWhitespace {
					indicators = true
				}
			case '#':
				if precededByWhitespace {
					indicators = true
				}
			}
		}
		switch c {
		case ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(s) {
				trailingSpace = true
			}
			prevSpace = true
		case '\n':
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(s) {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace = false
		default:
			prevSpace = false
		}
		precededByWhitespace = c == ' ' || c == '\n'
		i += w
	}
	a := analysis{ok: true, plain: true, single: true, block: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks || indicators {
		a.plain = false
	}
	if trailingSpace {
		a.block = false
	}
	if spaceBreak {
		a.plain, a.single, a.block = false, false, false
	}
	return a
}

// printableBMP: a multi-byte character the library writes as it is (printable, in the Basic
// Multilingual Plane, not a byte order mark, not a line or paragraph separator, not U+0085).
func printableBMP(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false
	case size == 4:
		return false
	case r < 0xA0: // U+0080..U+009F: controls and NEL
		return false
	case r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
		return false
	case r >= 0xD800 && r <= 0xDFFF:
		return false
	}
	return true
}
