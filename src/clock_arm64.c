/* placeholder until written */ typedef int vn__placeholder_clock_arm64;
