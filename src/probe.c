/* placeholder until written */ typedef int vn__placeholder_probe;
