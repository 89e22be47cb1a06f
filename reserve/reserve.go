// Package reserve owns the reserve set: salted commitments over reserve
// bundles' canonical bytes (scenarios.Bundle.Canonical), and the seal,
// apply, reveal and verify steps that let anyone check, after the fact, that
// published results came from the bundles committed to before.
package reserve
