#include "check_graph_util.h"
int main(void) { return 0; }
