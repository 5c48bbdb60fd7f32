// SecurityKeys tests: being written.
