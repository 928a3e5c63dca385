/* placeholder until written */ typedef int vn__placeholder_clock_x86;
