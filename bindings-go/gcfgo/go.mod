module github.com/blackwell-systems/gcf-go

go 1.19
