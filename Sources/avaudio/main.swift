print("avaudio")
