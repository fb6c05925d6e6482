package heightmap

// MetresPerDegree exposes metresPerDegree to the external tests.
var MetresPerDegree = metresPerDegree
