module example.com/gcf-go-sample

go 1.19

require github.com/blackwell-systems/gcf-go v1.7.1

// The one line a gcf-go user adds to switch to libgcf:
replace github.com/blackwell-systems/gcf-go => ../
