"""The scoring engine: tiles and notation, hand model, decompositions, waits, MCR and HK rule sets. No images."""
