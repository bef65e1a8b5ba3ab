import { Field, Float, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';

@InputType()
export class RouteTestInput {
  @Field() agentId!: string;
  @Field(() => JSONScalar, { description: 'A routing-tests document (the routing-tests.yaml format as JSON).' }) tests!: unknown;
  @Field(() => [JSONScalar], {
    nullable: true,
    description:
      "The agent's WHOLE desired manifest set (as applyManifests takes it). Absent: the current registry. Given: routes through the index it would produce, and lists the labelled messages whose route changes.",
  })
  manifests?: unknown[] | null;
}

@ObjectType('RouteTestResult')
export class RouteTestResultModel {
  @Field(() => Int) index!: number;
  @Field() text!: string;
  @Field() expect!: string;
  @Field({ description: 'A capability id, "clarify", or "failed".' }) got!: string;
  @Field(() => Float, { nullable: true }) confidence?: number | null;
  @Field() correct!: boolean;
  @Field() wrong!: boolean;
}

@ObjectType('RouteChange', {
  description: 'A labelled message whose route differs between the current registry and the proposed manifests.',
})
export class RouteChangeModel {
  @Field(() => Int) index!: number;
  @Field() text!: string;
  @Field() expect!: string;
  @Field() before!: string;
  @Field() after!: string;
}

@ObjectType('RouteTestReport')
export class RouteTestReportModel {
  @Field(() => Int) revision!: number;
  @Field(() => Int) total!: number;
  @Field(() => Int) correct!: number;
  @Field(() => Float) accuracy!: number;
  @Field(() => Float) minAccuracy!: number;
  @Field(() => Int) wrongRoutes!: number;
  @Field(() => Int) falseClarifications!: number;
  @Field(() => Int) correctClarifications!: number;
  @Field({ description: 'No wrong route and accuracy ≥ minAccuracy.' }) passed!: boolean;
  @Field(() => [RouteTestResultModel]) results!: RouteTestResultModel[];
  @Field(() => [RouteChangeModel]) changes!: RouteChangeModel[];
}
