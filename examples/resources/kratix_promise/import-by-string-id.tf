# A promise is imported by name. The first plan records what each destination's folder already
# holds, so a configuration that matches the store plans no write.
import {
  to = kratix_promise.jenkins
  id = "jenkins"
}
