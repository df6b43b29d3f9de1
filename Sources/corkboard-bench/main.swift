import ArgumentParser

// corkboard-bench: CPU benchmarks of the Corkboard model. See docs/BENCHMARKS.md.
CorkboardBench.main()
