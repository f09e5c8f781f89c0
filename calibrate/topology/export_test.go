package topology

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Cluster returns the cluster called name.
func (t Topology) Cluster(name string) (Cluster, bool) {
	for _, c := range t.Clusters {
		if c.Name == name {
			return c, true
		}
	}
	return Cluster{}, false
}
