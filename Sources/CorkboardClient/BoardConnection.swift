// The Swift client of corkboard.v1 arrives with the end-to-end tests.
