#include "check_util.h"
int main(void) { return 0; }
