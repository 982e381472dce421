module github.com/gcf-native/gcf-go-native

go 1.19
