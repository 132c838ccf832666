package statestore

import (
	"sync"
)

// Pool hands out stores and keeps their clients for the life of the provider process: one
// minio client per endpoint and credentials, one clone per git repository and branch.
type Pool struct {
	mu      sync.Mutex
	buckets map[string]Store
	repos   map[string]*gitRepo
}

// NewPool returns an empty Pool.
func NewPool() *Pool {
	return &Pool{buckets: map[string]Store{}, repos: map[string]*gitRepo{}}
}
