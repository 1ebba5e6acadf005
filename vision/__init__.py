"""The photo side: load, detect, classify, group into a HandProposal. May use `scoring`, never `fanscan`."""
