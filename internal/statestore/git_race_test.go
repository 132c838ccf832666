//go:build race

package statestore

// raceDetector is true when the tests run with -race, which makes zlib ten times slower.
const raceDetector = true
