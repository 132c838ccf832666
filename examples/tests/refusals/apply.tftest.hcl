# An apply of an offline provider: every resource refuses, and nothing is written anywhere.

run "apply_is_refused" {
  command = apply
}
