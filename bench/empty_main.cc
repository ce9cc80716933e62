// The start-up floor: a C++ program that links the standard library and does nothing.
// bench/startup_bench.cc times wvlock's fast commands as ratios to it.
int main() { return 0; }
